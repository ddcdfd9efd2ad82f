package dev.tokenmeter.workload;

import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;
import org.apache.commons.statistics.distribution.NormalDistribution;

/** Random draws shared by the workload classes; deterministic for a given random's state. */
final class Draws {
  private Draws() {}

  /** Redraws of a value below 1 before giving up and clamping to 1. */
  static final int MAX_REDRAWS = 1_000;

  private static final NormalDistribution STANDARD_NORMAL = NormalDistribution.of(0, 1);

  /**
   * A standard normal deviate from Apache Commons Statistics' sampler (Commons RNG's ziggurat),
   * reading {@code random} through nextLong(). Not RandomGenerator.nextGaussian(), whose algorithm
   * the JDK leaves unspecified: the library's is specified, so one seed gives the same draws on
   * every JDK.
   */
  static double standardNormal(SplittableRandom random) {
    return STANDARD_NORMAL.createSampler(random::nextLong).sample();
  }

  /**
   * {@code draw} rounded to the nearest integer, redrawn while below 1 (at most {@link
   * #MAX_REDRAWS} times, then 1), capped at {@link Integer#MAX_VALUE}.
   */
  static int atLeastOne(SplittableRandom random, ToDoubleFunction<SplittableRandom> draw) {
    for (int attempt = 0; attempt < MAX_REDRAWS; attempt++) {
      long value = Math.round(draw.applyAsDouble(random));
      if (value >= 1) {
        return (int) Math.min(value, Integer.MAX_VALUE);
      }
    }
    return 1;
  }

  /** {@code 512} for whole numbers, {@code 0.5} otherwise. */
  static String format(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? Long.toString((long) value)
        : Double.toString(value);
  }

  /**
   * A well-mixed 64-bit seed for item {@code id} of stream {@code stream} under {@code seed}
   * (SplitMix64's finalizer over a Weyl step), so request 7's draws do not depend on whether
   * requests 0..6 were drawn first, and two streams of one request are independent.
   */
  static long mix(long seed, long stream, long id) {
    long z = seed + 0x9E3779B97F4A7C15L * (id + 1) + 0xD1B54A32D192ED03L * (stream + 1);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A random for item {@code id} of {@code stream} under {@code seed}; see {@link #mix}. */
  static SplittableRandom forItem(long seed, long stream, long id) {
    return new SplittableRandom(mix(seed, stream, id));
  }
}
