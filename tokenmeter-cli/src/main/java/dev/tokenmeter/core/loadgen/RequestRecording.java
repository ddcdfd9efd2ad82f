package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.metrics.AnswerCounts;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.metrics.StageRecorder;
import dev.tokenmeter.core.request.RequestTimeline;
import java.util.concurrent.Executor;

/**
 * The last step of each request: its {@link RequestMetrics} go to the stage's recorder and to the
 * sink, with its answer counted (the target's tokenizer, and words) on the loop or, given a
 * counting executor, off it and back. Owns the counts still running off the loop: the stage's
 * future completes only once the last of them landed ({@link StageRunner#lastCountLanded}).
 * Loop-confined, except the counts themselves.
 */
final class RequestRecording {
  /**
   * The most answers waiting for the counting executor at once; each keeps its request's text and
   * chunk log (about 64 KiB at 2,048 tokens, so 16 MiB at most), which the launcher's heap for a
   * bench (scripts/heap-for-run.sh) has room for in its 64 MiB base.
   */
  static final int MAX_COUNTS_OUTSTANDING = 256;

  private final StageRunner stage;
  private final RequestSink sink;
  private final OutputTokenCounter counter;
  private final Executor counting;
  /** Requests ended whose output count is still running on {@link #counting}. */
  private int countsOutstanding;

  /**
   * @param counter the target's tokenizer, or null when there is none
   * @param counting runs the counts off the loop; null counts on the loop
   */
  RequestRecording(StageRunner stage, RequestSink sink, OutputTokenCounter counter, Executor counting) {
    this.stage = stage;
    this.sink = sink;
    this.counter = counter == null ? null : failSafe(counter);
    this.counting = counting;
  }

  /** The counter's name, null without a counter. */
  String counterName() {
    return counter == null ? null : counter.name();
  }

  /** Counts handed off the loop that did not come back yet. */
  int countsOutstanding() {
    return countsOutstanding;
  }

  /**
   * Records {@code t}, which ended: counted here when {@code onLoop} (the request that closes a
   * {@code --requests} window: the window's end must follow its tokens) or when it cannot go off
   * the loop ({@link #countOffLoop}), else handed over.
   */
  void ended(RequestTimeline t, boolean onLoop) {
    if (onLoop || !countOffLoop(t)) {
      RequestMetrics m = RequestMetrics.of(t, counter);
      stage.recorder().requestEnded(t, m);
      sink.accept(t, m);
    } else {
      handOver(t);
    }
  }

  /** {@code counter}, with -1 (no count: the request falls back to chunks) when it throws. */
  private static OutputTokenCounter failSafe(OutputTokenCounter counter) {
    return OutputTokenCounter.named(
        counter.name(),
        text -> {
          try {
            return counter.count(text);
          } catch (RuntimeException e) {
            return -1;
          }
        });
  }

  /**
   * True when {@code t}'s answer is counted (tokens and words) off the loop: there is a counting
   * executor, an answer to count, and fewer than {@link #MAX_COUNTS_OUTSTANDING} counts already
   * waiting for it. Past that the loop counts the answer itself, which slows it to the counter's
   * pace; otherwise, with a server faster than the counter (zero delay, 2,048-token answers), the
   * answers waiting to be counted piled up with their chunk logs until the heap ran out
   * (docs/PERFORMANCE.md, "Event loops and held reads at 1,000 streams").
   */
  private boolean countOffLoop(RequestTimeline t) {
    return counting != null && t.content().length() > 0 && countsOutstanding < MAX_COUNTS_OUTSTANDING;
  }

  /**
   * Hands {@code t}'s answer text to the counting executor; the loop only copies the text (about
   * 0.1 µs per KB). A counter that throws leaves the request counted by chunks.
   */
  private void handOver(RequestTimeline t) {
    StageRecorder.Pending p = stage.recorder().requestEnding(t);
    countsOutstanding++;
    String text = t.content().toString();
    OutputTokenCounter c = t.reasoningChars() == 0 ? counter : null;
    counting.execute(
        () -> {
          AnswerCounts counts = AnswerCounts.of(text, c);
          stage.loop.execute(() -> counted(p, t, counts));
        });
  }

  /** Back on the loop: {@code t}'s answer was counted. */
  private void counted(StageRecorder.Pending p, RequestTimeline t, AnswerCounts counts) {
    stage.window.advance();
    RequestMetrics m = RequestMetrics.withCounts(t, counts);
    stage.recorder().requestCounted(p, m);
    sink.accept(t, m);
    countsOutstanding--;
    if (countsOutstanding == 0) {
      stage.lastCountLanded();
    }
  }
}
