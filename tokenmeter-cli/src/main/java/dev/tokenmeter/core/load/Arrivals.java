package dev.tokenmeter.core.load;

/** The spacing of open-loop arrivals. */
public sealed interface Arrivals {

  /** Evenly spaced: arrival i at {@code i / rate}. */
  record Constant() implements Arrivals {}

  /** Poisson process: exponential gaps with mean {@code 1 / rate}. */
  record Poisson() implements Arrivals {}

  /**
   * Gamma-distributed gaps with shape {@code burstiness} and mean {@code 1 / rate}: burstiness 1 is
   * Poisson, below 1 burstier, above 1 more regular (vLLM's {@code --burstiness}).
   */
  record Gamma(double burstiness) implements Arrivals {
    public Gamma {
      if (!(burstiness > 0) || Double.isInfinite(burstiness)) {
        throw new IllegalArgumentException("burstiness must be a positive number, got " + burstiness);
      }
    }
  }

  /**
   * A recorded schedule: arrival i at {@code offsetsNanos[i]} from the stage start (non-decreasing),
   * none after the last (a replayed trace; {@code bench --trace}).
   */
  record Trace(long[] offsetsNanos) implements Arrivals {
    public Trace {
      offsetsNanos = offsetsNanos.clone();
      for (int i = 1; i < offsetsNanos.length; i++) {
        if (offsetsNanos[i] < offsetsNanos[i - 1]) {
          throw new IllegalArgumentException("trace arrivals must not go back in time (arrival " + i + ")");
        }
      }
      if (offsetsNanos.length > 0 && offsetsNanos[0] < 0) {
        throw new IllegalArgumentException("trace arrivals must not be negative");
      }
    }

    /** Arrivals in the schedule. */
    public int count() {
      return offsetsNanos.length;
    }

    /** Mean rate from the first arrival to the last, per second; the count when they are one instant. */
    public double meanRatePerSecond() {
      int n = offsetsNanos.length;
      long span = n < 2 ? 0 : offsetsNanos[n - 1] - offsetsNanos[0];
      return span <= 0 ? Math.max(1, n) : (n - 1) * 1e9 / span;
    }
  }

  default String label() {
    return switch (this) {
      case Constant c -> "constant";
      case Poisson p -> "poisson";
      case Gamma g -> "gamma(" + g.burstiness() + ")";
      case Trace t -> "trace";
    };
  }
}
