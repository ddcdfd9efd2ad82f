package dev.tokenmeter.core.load;

import java.util.SplittableRandom;
import org.apache.commons.statistics.distribution.ContinuousDistribution;
import org.apache.commons.statistics.distribution.GammaDistribution;

/**
 * Implementations of {@link ArrivalSchedule}: constant, Poisson and gamma spacing.
 *
 * <pre>
 * design notes
 * - Constant: arrival i sits at round(i * 1e9 / rate) ns, computed from i every time, so there is
 *   no accumulated error: at 3/s, arrivals 0, 333_333_333, 666_666_667, 1_000_000_000, ... and
 *   exactly rate * D arrivals fall in [0, D) whenever rate * D is a whole number. Arrival 0 is
 *   at 0.
 * - Poisson and gamma: a renewal process that starts at 0, so arrival 0 comes after one gap (the
 *   Poisson count in [0, D) then has mean exactly rate * D). Gaps are summed in double nanoseconds
 *   with Kahan compensation and rounded to the nearest nanosecond at each read; a double holds
 *   nanoseconds to 0.125 ns up to 2^50 ns (13 days), so the sum does not drift; offsets are
 *   clamped to be non-decreasing.
 * - Gamma gaps: shape k = burstiness, scale 1 / (rate * k): mean 1 / rate, coefficient of
 *   variation 1 / sqrt(k) (vLLM's --burstiness). Drawn by Apache Commons Statistics'
 *   GammaDistribution sampler (Commons RNG's Marsaglia and Tsang for k >= 1, Ahrens and Dieter
 *   for k < 1), whose algorithms are specified, so one seed gives one schedule on every JDK.
 * - Exponential gaps: the inverse CDF, -ln(1 - U) / rate, one line; kept rather than the
 *   library's ziggurat sampler because the simulator's accuracy study runs its open-loop points
 *   on these draws and its committed fixed points rest on them.
 * - Randomness: java.util.SplittableRandom (SplitMix64) seeded with the plan's seed; the Gamma
 *   sampler reads it through nextLong().
 * </pre>
 */
final class ArrivalSchedules {
  private ArrivalSchedules() {}

  private static final double NANOS_PER_SECOND = 1e9;

  static ArrivalSchedule create(LoadModel.Open model, long seed) {
    double rate = model.ratePerSecond();
    return switch (model.arrivals()) {
      case Arrivals.Constant c -> new ConstantSchedule(rate);
      case Arrivals.Poisson p -> new RenewalSchedule(new ExponentialGaps(rate, seed));
      case Arrivals.Gamma g -> new RenewalSchedule(new GammaGaps(rate, g.burstiness(), seed));
      case Arrivals.Trace t -> new RecordedSchedule(t.offsetsNanos());
    };
  }

  /** Evenly spaced arrivals at absolute offsets {@code round(i * 1e9 / rate)}. */
  static final class ConstantSchedule implements ArrivalSchedule {
    private final double ratePerSecond;
    private long index;

    ConstantSchedule(double ratePerSecond) {
      this.ratePerSecond = ratePerSecond;
    }

    @Override
    public long nextOffsetNanos() {
      // Math.round saturates at Long.MAX_VALUE for absurdly slow rates, which keeps it monotone.
      return Math.round(index++ * NANOS_PER_SECOND / ratePerSecond);
    }
  }

  /**
   * Arrival i at {@code offsets[i]}; after the last, {@link Long#MAX_VALUE} (no arrival ever), which
   * the runner's accept-until check treats as the end.
   */
  static final class RecordedSchedule implements ArrivalSchedule {
    private final long[] offsets;
    private int index;

    RecordedSchedule(long[] offsets) {
      this.offsets = offsets;
    }

    @Override
    public long nextOffsetNanos() {
      return index < offsets.length ? offsets[index++] : Long.MAX_VALUE;
    }
  }

  /** A source of inter-arrival gaps in nanoseconds, each {@code >= 0}. */
  interface GapSource {
    double nextGapNanos();
  }

  /**
   * Arrival i at the sum of gaps 0..i, rounded to the nanosecond. The sum is compensated (Kahan): a
   * plain double sum of 3 million gaps of 1e9/3 ns rounds the same way at every step and ends tens
   * of microseconds off; the compensated sum ends within 1 ns.
   */
  static final class RenewalSchedule implements ArrivalSchedule {
    private final GapSource gaps;
    private double sumNanos;
    private double compensationNanos;
    private long lastOffsetNanos;

    RenewalSchedule(GapSource gaps) {
      this.gaps = gaps;
    }

    @Override
    public long nextOffsetNanos() {
      double y = gaps.nextGapNanos() - compensationNanos;
      double t = sumNanos + y;
      compensationNanos = (t - sumNanos) - y;
      sumNanos = t;
      // The compensation can pull the rounded sum back by a hair; offsets must never go back.
      lastOffsetNanos = Math.max(lastOffsetNanos, Math.round(sumNanos));
      return lastOffsetNanos;
    }
  }

  /** Exponential gaps with mean {@code 1e9 / rate} ns (a Poisson process). */
  static final class ExponentialGaps implements GapSource {
    private final double meanGapNanos;
    private final SplittableRandom random;

    ExponentialGaps(double ratePerSecond, long seed) {
      this.meanGapNanos = NANOS_PER_SECOND / ratePerSecond;
      this.random = new SplittableRandom(seed);
    }

    @Override
    public double nextGapNanos() {
      // 1 - U lies in (0, 1], so the log is finite.
      return -Math.log(1.0 - random.nextDouble()) * meanGapNanos;
    }
  }

  /** Gamma gaps with shape {@code k} and mean {@code 1e9 / rate} ns. */
  static final class GammaGaps implements GapSource {
    private final ContinuousDistribution.Sampler sampler;

    GammaGaps(double ratePerSecond, double shape, long seed) {
      SplittableRandom random = new SplittableRandom(seed);
      this.sampler = GammaDistribution.of(shape, NANOS_PER_SECOND / (ratePerSecond * shape))
          .createSampler(random::nextLong);
    }

    @Override
    public double nextGapNanos() {
      return sampler.sample();
    }
  }
}
