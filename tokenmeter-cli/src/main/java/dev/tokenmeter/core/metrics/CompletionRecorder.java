package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.analysis.Completions;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestTimeline;
import org.HdrHistogram.Histogram;

/**
 * Tallies a stage's code-completion requests ({@code --profile completion}) into {@link
 * Completions}: the engine reports each measured one when it ends. Single writer (the stage's
 * loop), as {@link StageRecorder}.
 */
public final class CompletionRecorder {
  private long sent;
  private long completed;
  private long superseded;
  private long cancelledAfter;
  private long failed;
  private long cut;
  private final Histogram ttft = new Histogram(3);

  /** A measured completion request ended ({@code t.end(..)} called). */
  public void ended(RequestTimeline t) {
    sent++;
    switch (t.outcome()) {
      case Outcome.Completed c -> {
        completed++;
        if (t.firstTokenNanos() >= 0 && t.sentNanos() >= 0) {
          ttft.recordValue(Math.max(0, t.firstTokenNanos() - t.sentNanos()));
        }
      }
      case Outcome.Cancelled c when Outcome.Cancelled.SUPERSEDED.equals(c.reason()) -> superseded++;
      case Outcome.Cancelled c when Outcome.Cancelled.CANCEL_AFTER.equals(c.reason()) -> cancelledAfter++;
      case Outcome.Cancelled c -> cut++;
      default -> failed++;
    }
  }

  /** Whether any measured completion request ended. */
  public boolean any() {
    return sent > 0;
  }

  /** The tally; what the server did on cancellation is not known here ({@link Completions#withServerStop}). */
  public Completions result() {
    return new Completions(sent, completed, superseded, cancelledAfter, failed, cut, ttft.copy(),
        Completions.ServerStop.NOT_KNOWN);
  }
}
