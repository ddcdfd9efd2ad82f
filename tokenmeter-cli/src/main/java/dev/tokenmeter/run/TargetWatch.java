package dev.tokenmeter.run;

import dev.tokenmeter.core.loadgen.RequestSink;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestTimeline;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Stops a stage that can only fail: a request sink that passes every request on and calls {@code
 * onStop} once, with its {@link Verdict}, when either rule holds (docs/RELIABILITY.md,
 * "Interruption"):
 *
 * <ul>
 *   <li>{@link Unreachable}: requests have only failed to connect for {@link #DEAD_AFTER_NANOS}
 *       ({@value #MIN_FAILURES} at least, nothing else ending between them). Without it a closed
 *       loop would spin on refused connections to the end of the stage.
 *   <li>{@link Rejected}: the stage's first {@code firstFailures} requests to end (warm-up included)
 *       all failed the same way: the same HTTP status, stream error or protocol error, with the
 *       same message once digits are set aside. A wrong {@code --model}, {@code --url} or {@code
 *       --api} otherwise sent 56k-188k failing requests through a whole stage (issue 43). The
 *       tool's own cancellations and connection failures (the rule above) neither count nor break
 *       the run of failures; a success, a timeout, a truncated stream or a different failure ends
 *       the rule for the stage. 0 turns it off ({@code --fail-fast 0}).
 * </ul>
 *
 * <p>Times are the requests' own end times (the engine's ticker); no clock is read here. Called on
 * the lane's event loop, like every {@link RequestSink}; {@link #verdict()} and {@link
 * #firstFailure()} from any thread. One watch per stage.
 */
final class TargetWatch implements RequestSink {
  /** How long only connection failures must last: 2 s rides out a server's restart of its listener. */
  static final long DEAD_AFTER_NANOS = 2_000_000_000L;

  /** Fewest connection failures in a row before the target counts as dead. */
  static final int MIN_FAILURES = 5;

  /** {@code --fail-fast}'s default: the first 10 requests of a stage failing alike stop it. */
  static final int FIRST_FAILURES = 10;

  /** Why a stage was stopped; {@link #reason()} is what its requests still in flight are cancelled with. */
  sealed interface Verdict {
    String reason();
  }

  /** {@code attempts} connections in a row failed over {@code lastedNanos}; the last said {@code message}. */
  record Unreachable(long attempts, long lastedNanos, String message) implements Verdict {
    @Override
    public String reason() {
      return "the server stopped accepting connections";
    }

    /** {@code 81 connection attempts in a row failed over 2.1 s (refused)}. */
    String describe() {
      return attempts + " connection attempts in a row failed over "
          + String.format(Locale.ROOT, "%.1f", lastedNanos / 1e9) + " s (" + message + ")";
    }
  }

  /** The stage's first {@code count} requests all failed like {@code first}, the first of them. */
  record Rejected(int count, Outcome first) implements Verdict {
    @Override
    public String reason() {
      return "the first " + count + " requests of the stage failed the same way";
    }
  }

  private final RequestSink inner;
  private final int firstFailures;
  private final Consumer<Verdict> onStop;
  private long streak;
  private long streakStartNanos;
  private boolean firstArmed;
  private int alike;
  private String alikeSignature;
  private volatile Outcome firstFailure;
  private volatile Verdict verdict;

  /**
   * A watch passing requests on to {@code inner}. {@code firstFailures} is the {@link Rejected}
   * rule's count (0: off).
   */
  TargetWatch(RequestSink inner, int firstFailures, Consumer<Verdict> onStop) {
    if (firstFailures < 0) {
      throw new IllegalArgumentException("firstFailures must be 0 (off) or more, got " + firstFailures);
    }
    this.inner = inner;
    this.firstFailures = firstFailures;
    this.firstArmed = firstFailures > 0;
    this.onStop = onStop;
  }

  @Override
  public void accept(RequestTimeline timeline, RequestMetrics metrics) {
    inner.accept(timeline, metrics);
    Outcome outcome = timeline.outcome();
    if (firstFailure == null && !metrics.succeeded() && metrics.errorClass() != ErrorClass.CANCELLED) {
      firstFailure = outcome;
    }
    watchConnects(metrics, outcome);
    if (firstArmed) {
      watchFirst(outcome);
    }
  }

  private void watchConnects(RequestMetrics metrics, Outcome outcome) {
    if (!metrics.succeeded() && metrics.errorClass() == ErrorClass.CONNECT) {
      if (streak++ == 0) {
        streakStartNanos = metrics.endNanos();
      }
      long lasted = metrics.endNanos() - streakStartNanos;
      if (streak >= MIN_FAILURES && lasted >= DEAD_AFTER_NANOS) {
        String message = outcome instanceof Outcome.ConnectFailed c ? c.message() : "connect failed";
        stop(new Unreachable(streak, lasted, message));
      }
    } else if (metrics.succeeded() || metrics.errorClass() != ErrorClass.CANCELLED) {
      streak = 0; // the tool's own cancellations (stage end, Ctrl-C) say nothing about the server
    }
  }

  private void watchFirst(Outcome outcome) {
    String signature =
        switch (outcome) {
          case Outcome.Cancelled c -> null; // the tool's own
          case Outcome.ConnectFailed c -> null; // the rule above
          case Outcome.HttpError h -> "HTTP " + h.status() + " " + sameWay(h.body());
          case Outcome.StreamError e -> "stream " + sameWay(e.message());
          case Outcome.ProtocolError p -> "protocol " + sameWay(p.message());
          case Outcome.Completed c -> "";
          case Outcome.TimedOut t -> ""; // slow is not wrong: a cold server may time out its first requests
          case Outcome.Truncated t -> "";
          case Outcome.ContentFiltered f -> ""; // an answer the policy stopped: the server works
        };
    if (signature == null) {
      return;
    }
    if (signature.isEmpty() || (alikeSignature != null && !alikeSignature.equals(signature))) {
      firstArmed = false;
      return;
    }
    alikeSignature = signature;
    if (++alike >= firstFailures) {
      firstArmed = false;
      stop(new Rejected(alike, firstFailure));
    }
  }

  private void stop(Verdict v) {
    if (verdict == null) {
      verdict = v;
      onStop.accept(v);
    }
  }

  /** {@code text} with every run of digits as {@code #}: ids, counts and times do not make failures differ. */
  static String sameWay(String text) {
    return text == null ? "" : text.replaceAll("[0-9]+", "#");
  }

  /** Why the stage was stopped, or null while it was not. */
  Verdict verdict() {
    return verdict;
  }

  /** The stage's first failure that was not the tool's own cancellation, or null while none. */
  Outcome firstFailure() {
    return firstFailure;
  }
}
