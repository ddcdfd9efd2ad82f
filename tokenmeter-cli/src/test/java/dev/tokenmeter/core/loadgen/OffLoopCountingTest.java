package dev.tokenmeter.core.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.simulator.virtual.VirtualLoop;
import dev.tokenmeter.testkit.ScriptedEndpoint.Script;
import dev.tokenmeter.testkit.ScriptedEndpoint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Output counting off the loop, in virtual time: a count that has not come back (a counter that
 * blocks) delays no stream, the stage waits for it, and the result equals counting on the loop.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OffLoopCountingTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long T0 = 5 * S;
  private static final RequestSource HI =
      id -> new RequestSpec(id, new Prompt.Text("hi"), 1, false, OptionalInt.of(10));
  /** " tok" × 10 = 40 characters: 40 "tokens", neither the chunk count (10) nor usage (none). */
  private static final OutputTokenCounter CHARS = CharSequence::length;
  // Each request: sent after 1 ms, first token 100 ms later, 10 tokens 10 ms apart: ends at 191 ms.
  // 2 users × 3 requests = the 6 measured requests; the last two both end at 573 ms.
  private static final Script SCRIPT = new Script(MS, 100 * MS, 10 * MS, 10);
  private static final StagePlan PLAN =
      new StagePlan(0, new LoadModel.Closed(2, 0), new StopCondition.Requests(6), 0, 0, 1);

  private record Finished(RequestTimeline t, RequestMetrics m) {}

  @Test
  void heldCountsDelayNoStreamAndTheStageWaitsForThemThenMatchesCountingOnTheLoop() {
    VirtualLoop loop = new VirtualLoop(T0);
    List<Finished> finished = new ArrayList<>();
    List<Runnable> held = new ArrayList<>(); // the counting "thread": nothing runs until released
    StageRunner runner =
        new StageRunner(
            new ScriptedEndpoint(loop, SCRIPT).withoutUsage(), PLAN, HI, new Timeouts(0, 0, 0),
            loop, (t, m) -> finished.add(new Finished(t, m)), CHARS, held::add);
    CompletableFuture<Long> done = runner.start();

    assertThat(loop.runUntil(done::isDone)).as("the stage waits for its counts").isFalse();
    // 5 counts handed over; the request that closes the --requests window is counted on the loop.
    assertThat(held).hasSize(5);
    assertThat(runner.recorder().pending()).isEqualTo(5);
    assertThat(finished).hasSize(1);
    // Every stream ran as scripted while the counts were held: user u's k-th request was sent at
    // k × 191 + 1 ms, its chunks 100 + 10 i ms later, so the closed loop reissued at each end.
    assertThat(finished.get(0).t().endNanos()).isEqualTo(T0 + 573 * MS);
    assertThatIllegalStateException()
        .isThrownBy(() -> runner.recorder().finish(T0 + S, ClientCpu.UNKNOWN))
        .withMessageContaining("5 requests still wait");

    loop.runUntil(T0 + 10 * S); // time passes while counting: the stage end must not move
    held.forEach(Runnable::run);
    assertThat(loop.runUntil(done::isDone)).isTrue();
    assertThat(done.join()).isEqualTo(T0 + 573 * MS);
    assertThat(finished).hasSize(6);
    finished.sort(Comparator.comparingLong(f -> f.t().id()));
    for (Finished f : finished) {
      long k = f.t().id() / 2; // ids 0,1 are k = 0; 2,3 are k = 1; 4,5 are k = 2
      assertThat(f.t().sentNanos()).isEqualTo(T0 + (k * 191 + 1) * MS);
      for (int i = 0; i < 10; i++) {
        assertThat(f.t().chunkNanos(i)).isEqualTo(T0 + (k * 191 + 101 + 10L * i) * MS);
      }
      assertThat(f.m().outputTokens()).isEqualTo(40);
      assertThat(f.m().outputTokenSource()).isEqualTo(TokenCountSource.TOKENIZER);
    }
    StageResult offLoop = runner.recorder().finish(done.join(), ClientCpu.UNKNOWN);

    StageResult onLoop = inlineReference();
    assertThat(offLoop.throughput()).isEqualTo(onLoop.throughput());
    assertThat(offLoop.throughput().windowOutputTokens()).isEqualTo(6 * 40);
    assertThat(offLoop.tokens()).isEqualTo(onLoop.tokens());
    assertThat(offLoop.tokens().outputSources().get(TokenCountSource.TOKENIZER)).isEqualTo(6);
    for (Metric m : List.of(Metric.TPOT, Metric.ITL, Metric.OUTPUT_TOKENS, Metric.E2E)) {
      assertThat(offLoop.metric(m)).as(m.name()).isEqualTo(onLoop.metric(m));
    }
    // (lastToken − firstToken) / (n − 1) = 90 ms / 39, to the histogram's 3 significant digits
    assertThat(offLoop.metric(Metric.TPOT).max()).isCloseTo(90.0 / 39, within(0.001));
  }

  /** The same stage with the counts run on the loop (the 7-argument constructor). */
  private static StageResult inlineReference() {
    VirtualLoop loop = new VirtualLoop(T0);
    StageRunner runner =
        new StageRunner(
            new ScriptedEndpoint(loop, SCRIPT).withoutUsage(), PLAN, HI, new Timeouts(0, 0, 0),
            loop, (t, m) -> {}, CHARS);
    CompletableFuture<Long> done = runner.start();
    assertThat(loop.runUntil(done::isDone)).isTrue();
    return runner.recorder().finish(done.join(), ClientCpu.UNKNOWN);
  }

  @Test
  void aCounterThatThrowsLeavesTheRequestCountedByChunks() {
    VirtualLoop loop = new VirtualLoop(T0);
    List<Finished> finished = new ArrayList<>();
    OutputTokenCounter broken = text -> {
      throw new IllegalStateException("tokenizer crashed");
    };
    StageRunner runner =
        new StageRunner(
            new ScriptedEndpoint(loop, SCRIPT).withoutUsage(), PLAN, HI, new Timeouts(0, 0, 0),
            loop, (t, m) -> finished.add(new Finished(t, m)), broken, Runnable::run);
    CompletableFuture<Long> done = runner.start();
    assertThat(loop.runUntil(done::isDone)).isTrue();
    // Handed over (5) or counted on the loop (the window's last request): all fall back to chunks.
    assertThat(finished).hasSize(6);
    assertThat(finished).allSatisfy(f -> {
      assertThat(f.m().outputTokenSource()).isEqualTo(TokenCountSource.CHUNKS);
      assertThat(f.m().outputTokens()).isEqualTo(10);
    });
  }

  @Test
  void pastTheBoundOfWaitingCountsTheLoopCountsItself() {
    // A counter that never keeps up (held: nothing runs until released). 300 requests end; at
    // most MAX_COUNTS_OUTSTANDING wait for it, each holding its text and chunk log; the rest are
    // counted on the loop, with the same counts.
    int requests = RequestRecording.MAX_COUNTS_OUTSTANDING + 44;
    VirtualLoop loop = new VirtualLoop(T0);
    List<Finished> finished = new ArrayList<>();
    List<Runnable> held = new ArrayList<>();
    StagePlan plan = new StagePlan(0, new LoadModel.Closed(2, 0), new StopCondition.Requests(requests), 0, 0, 1);
    StageRunner runner =
        new StageRunner(
            new ScriptedEndpoint(loop, SCRIPT).withoutUsage(), plan, HI, new Timeouts(0, 0, 0),
            loop, (t, m) -> finished.add(new Finished(t, m)), CHARS, held::add);
    CompletableFuture<Long> done = runner.start();
    assertThat(loop.runUntil(done::isDone)).isFalse();
    assertThat(held).hasSize(RequestRecording.MAX_COUNTS_OUTSTANDING);
    assertThat(runner.recorder().pending()).isEqualTo(RequestRecording.MAX_COUNTS_OUTSTANDING);
    assertThat(finished).hasSize(44);
    held.forEach(Runnable::run);
    assertThat(loop.runUntil(done::isDone)).isTrue();
    assertThat(finished).hasSize(requests);
    assertThat(finished).allSatisfy(f -> {
      assertThat(f.m().outputTokens()).isEqualTo(40);
      assertThat(f.m().outputTokenSource()).isEqualTo(TokenCountSource.TOKENIZER);
    });
    assertThat(runner.recorder().finish(done.join(), ClientCpu.UNKNOWN).throughput().windowOutputTokens())
        .isEqualTo(requests * 40L);
  }
}
