package dev.tokenmeter.workload;

import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;

/** Random draws shared by the workload classes; deterministic for a given random's state. */
final class Draws {
  private Draws() {}

  /** Redraws of a value below 1 before giving up and clamping to 1. */
  static final int MAX_REDRAWS = 1_000;

  /**
   * A standard normal deviate by Box-Muller, one of the pair. Written out rather than
   * RandomGenerator.nextGaussian(), whose algorithm the JDK leaves unspecified, so that one seed
   * gives the same draws on every JDK.
   */
  static double standardNormal(SplittableRandom random) {
    double u1 = 1.0 - random.nextDouble(); // (0, 1]: log is finite
    double u2 = random.nextDouble();
    return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
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
