package dev.tokenmeter.core.load;

import java.util.OptionalInt;

/**
 * How requests are released: a validated, immutable plan with no clock in it. Closed loops hold a
 * target concurrency; open loops yield absolute arrival offsets (see {@link ArrivalSchedule}).
 */
public sealed interface LoadModel {

  /**
   * {@code concurrency} virtual users; each sends its next request when its last one ended, after
   * {@code thinkTimeNanos}.
   */
  record Closed(int concurrency, long thinkTimeNanos) implements LoadModel {
    public Closed {
      if (concurrency < 1) {
        throw new IllegalArgumentException("concurrency must be at least 1, got " + concurrency);
      }
      if (thinkTimeNanos < 0) {
        throw new IllegalArgumentException("think time must not be negative");
      }
    }
  }

  /**
   * Requests arrive at {@code ratePerSecond} on average, spaced by {@code arrivals}, whatever the
   * server's speed; at most {@code maxConcurrency} in flight when set (arrivals beyond it wait, and
   * their latency from the schedule shows the wait).
   */
  record Open(double ratePerSecond, Arrivals arrivals, OptionalInt maxConcurrency)
      implements LoadModel {
    public Open {
      if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
        throw new IllegalArgumentException("rate must be a positive number, got " + ratePerSecond);
      }
      if (maxConcurrency.isPresent() && maxConcurrency.getAsInt() < 1) {
        throw new IllegalArgumentException("max concurrency must be at least 1");
      }
    }
  }

  /** Human-readable label for tables: {@code "c=25"}, {@code "rate=4/s poisson"}. */
  default String label() {
    return switch (this) {
      case Closed c -> "c=" + c.concurrency();
      case Open o -> "rate=" + formatRate(o.ratePerSecond()) + "/s " + o.arrivals().label();
    };
  }

  /**
   * {@code 6}, {@code 0.5}, {@code 6.089}: 4 significant figures at most, so a rate a capacity
   * search or a workload profile computed reads {@code 6.089/s}, not {@code 6.088729145432112/s}.
   */
  static String formatRate(double r) {
    if (r == Math.rint(r)) {
      return Long.toString((long) r);
    }
    return new java.math.BigDecimal(r).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
  }
}
