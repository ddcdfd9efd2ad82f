package dev.tokenmeter.run;

import dev.tokenmeter.core.engine.RequestSink;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.RequestTimeline;

/**
 * Notices a target that died mid-run: a request sink that passes every request on and, when
 * requests have only failed to connect for {@link #DEAD_AFTER_NANOS} ({@value #MIN_FAILURES} at
 * least, nothing else ending between them), calls {@code onDead} once. Without it a closed loop
 * would spin on refused connections to the end of the stage and the run would look finished.
 *
 * <p>Times are the requests' own end times (the engine's ticker); no clock is read here. Called on
 * the lane's event loop, like every {@link RequestSink}; {@link #verdict()} from any thread.
 */
final class TargetWatch implements RequestSink {
  /** How long only connection failures must last: 2 s rides out a server's restart of its listener. */
  static final long DEAD_AFTER_NANOS = 2_000_000_000L;

  /** Fewest connection failures in a row before the target counts as dead. */
  static final int MIN_FAILURES = 5;

  private final RequestSink inner;
  private final Runnable onDead;
  private long streak;
  private long streakStartNanos;
  private volatile String verdict;

  TargetWatch(RequestSink inner, Runnable onDead) {
    this.inner = inner;
    this.onDead = onDead;
  }

  @Override
  public void accept(RequestTimeline timeline, RequestMetrics metrics) {
    inner.accept(timeline, metrics);
    if (!metrics.succeeded() && metrics.errorClass() == ErrorClass.CONNECT) {
      if (streak++ == 0) {
        streakStartNanos = metrics.endNanos();
      }
      long lasted = metrics.endNanos() - streakStartNanos;
      if (verdict == null && streak >= MIN_FAILURES && lasted >= DEAD_AFTER_NANOS) {
        verdict = streak + " connection attempts in a row failed over " + String.format(java.util.Locale.ROOT,
            "%.1f", lasted / 1e9) + " s (" + describe(timeline) + ")";
        onDead.run();
      }
    } else if (metrics.succeeded() || metrics.errorClass() != ErrorClass.CANCELLED) {
      streak = 0; // the tool's own cancellations (stage end, Ctrl-C) say nothing about the server
    }
  }

  /** Why the target counts as dead, or null while it does not. */
  String verdict() {
    return verdict;
  }

  private static String describe(RequestTimeline t) {
    return t.outcome() instanceof dev.tokenmeter.core.request.Outcome.ConnectFailed c ? c.message() : "connect failed";
  }
}
