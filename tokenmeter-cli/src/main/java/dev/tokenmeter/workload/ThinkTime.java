package dev.tokenmeter.workload;

import java.util.List;
import java.util.SplittableRandom;

/**
 * A distribution of pauses between a session's turns ({@code --think-time}), in nanoseconds:
 * fixed, uniform over a range, exponential with a mean (a user who answers at random moments), or
 * the pauses a workload profile observed in production.
 * Deterministic for a given random's state; immutable.
 */
public sealed interface ThinkTime {

  /** No pause. */
  ThinkTime NONE = new Fixed(0);

  /** A pause drawn from this distribution, nanoseconds, at least 0. */
  long sampleNanos(SplittableRandom random);

  /** The mean pause, nanoseconds. */
  double meanNanos();

  /** Short label for reports: {@code "fixed 2s"}, {@code "uniform 1s..5s"}, {@code "exponential mean 3s"}. */
  String describe();

  /** Always {@code nanos}. */
  record Fixed(long nanos) implements ThinkTime {
    public Fixed {
      if (nanos < 0) {
        throw new IllegalArgumentException("a think time must not be negative");
      }
    }

    @Override
    public long sampleNanos(SplittableRandom random) {
      return nanos;
    }

    @Override
    public double meanNanos() {
      return nanos;
    }

    @Override
    public String describe() {
      return "fixed " + seconds(nanos);
    }
  }

  /** Uniform over {@code [minNanos, maxNanos]}. */
  record Uniform(long minNanos, long maxNanos) implements ThinkTime {
    public Uniform {
      if (minNanos < 0 || minNanos > maxNanos) {
        throw new IllegalArgumentException("uniform think time needs 0 <= min <= max");
      }
    }

    @Override
    public long sampleNanos(SplittableRandom random) {
      return minNanos == maxNanos ? minNanos : random.nextLong(minNanos, maxNanos + 1);
    }

    @Override
    public double meanNanos() {
      return (minNanos + (double) maxNanos) / 2;
    }

    @Override
    public String describe() {
      return "uniform " + seconds(minNanos) + ".." + seconds(maxNanos);
    }
  }

  /** Exponential with mean {@code meanNanos} (inverse-transform sampling from one nextDouble). */
  record Exponential(long averageNanos) implements ThinkTime {
    public Exponential {
      if (averageNanos <= 0) {
        throw new IllegalArgumentException("an exponential think time needs a positive mean");
      }
    }

    @Override
    public long sampleNanos(SplittableRandom random) {
      return Math.round(-Math.log(1 - random.nextDouble()) * averageNanos);
    }

    @Override
    public double meanNanos() {
      return averageNanos;
    }

    @Override
    public String describe() {
      return "exponential mean " + seconds(averageNanos);
    }
  }

  /**
   * Observed pauses, as 101 quantiles (p0..p100) in milliseconds ({@code proxy export-workload}'s
   * {@code conversations.think_time_ms}): a draw picks a uniform point between two neighbouring
   * quantiles, so the draws follow the observed distribution piecewise linearly.
   */
  record Empirical(List<Integer> quantileMillis) implements ThinkTime {
    public Empirical {
      quantileMillis = List.copyOf(quantileMillis);
      if (quantileMillis.size() < 2) {
        throw new IllegalArgumentException(
            "an empirical think time needs at least 2 quantiles, got " + quantileMillis.size());
      }
      for (int i = 0; i < quantileMillis.size(); i++) {
        if (quantileMillis.get(i) < 0 || i > 0 && quantileMillis.get(i) < quantileMillis.get(i - 1)) {
          throw new IllegalArgumentException(
              "think-time quantiles must be milliseconds, at least 0, ascending; got " + quantileMillis);
        }
      }
    }

    @Override
    public long sampleNanos(SplittableRandom random) {
      double u = random.nextDouble() * (quantileMillis.size() - 1);
      int i = (int) u;
      double lo = quantileMillis.get(i);
      double hi = quantileMillis.get(Math.min(i + 1, quantileMillis.size() - 1));
      return Math.round((lo + (u - i) * (hi - lo)) * 1e6);
    }

    @Override
    public double meanNanos() {
      double sum = 0;
      for (int i = 1; i < quantileMillis.size(); i++) {
        sum += (quantileMillis.get(i - 1) + quantileMillis.get(i)) / 2.0;
      }
      return sum / (quantileMillis.size() - 1) * 1e6;
    }

    @Override
    public String describe() {
      return "observed, mean " + seconds(Math.round(meanNanos()));
    }
  }

  private static String seconds(long nanos) {
    return Draws.format(Math.round(nanos / 1e6) / 1e3) + "s";
  }
}
