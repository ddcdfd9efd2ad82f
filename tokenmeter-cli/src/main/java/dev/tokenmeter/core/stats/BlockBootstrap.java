package dev.tokenmeter.core.stats;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A bootstrap of the difference of a quantile between two samples whose values come in dependent
 * groups (blocks of time, or runs): each resample draws whole blocks with replacement, as many as
 * the sample has, and pools their values. Requests of one block share the server's state (batch,
 * queue), so resampling them one by one would treat them as independent and make intervals too
 * narrow; resampling blocks keeps that dependence inside each draw. Deterministic for a seed;
 * stateless.
 *
 * <p>Otherwise as {@link QuantileBootstrap}: nearest-rank quantiles (rank ⌈q·n⌉ of the pooled
 * resample), the percentile interval, and the two-sided p-value {@code min(1, 2·min(#{d ≤ 0}+1,
 * #{d ≥ 0}+1)/(R+1))}. A round costs O(n): values are sorted once, and a resample is a count per
 * block.
 */
public final class BlockBootstrap {
  private BlockBootstrap() {}

  /**
   * The interval for {@code q(b) − q(a)} at confidence {@code level}, resampling blocks.
   *
   * @param blockOfA the block of each value of {@code a}: 0 to (blocks − 1), every block used
   * @param blockOfB the same for {@code b}
   * @throws IllegalArgumentException when a sample is empty or its blocks are not 0..k−1
   */
  public static QuantileBootstrap.Interval difference(
      double[] a, int[] blockOfA, double[] b, int[] blockOfB, double q, double level, int resamples,
      long seed) {
    Side sa = new Side(a, blockOfA);
    Side sb = new Side(b, blockOfB);
    SplittableRandom random = new SplittableRandom(seed);
    double[] diffs = new double[resamples];
    for (int r = 0; r < resamples; r++) {
      diffs[r] = sb.resampledQuantile(q, random) - sa.resampledQuantile(q, random);
    }
    return QuantileBootstrap.interval(
        QuantileBootstrap.quantile(sb.sorted, q) - QuantileBootstrap.quantile(sa.sorted, q), diffs, level);
  }

  /** One sample: values sorted, each with its block; block sizes. */
  private static final class Side {
    private final double[] sorted;
    private final int[] blockOfSorted;
    private final int[] sizes;
    private final int[] drawn;

    Side(double[] values, int[] blockOf) {
      if (values.length == 0 || values.length != blockOf.length) {
        throw new IllegalArgumentException("a block bootstrap needs values, each with its block");
      }
      int blocks = Arrays.stream(blockOf).max().orElse(-1) + 1;
      sizes = new int[blocks];
      for (int k : blockOf) {
        if (k < 0) {
          throw new IllegalArgumentException("negative block " + k);
        }
        sizes[k]++;
      }
      if (Arrays.stream(sizes).anyMatch(s -> s == 0)) {
        throw new IllegalArgumentException("blocks must be numbered 0.." + (blocks - 1) + " with none empty");
      }
      Integer[] order = new Integer[values.length];
      for (int i = 0; i < order.length; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (x, y) -> Double.compare(values[x], values[y]));
      sorted = new double[values.length];
      blockOfSorted = new int[values.length];
      for (int i = 0; i < order.length; i++) {
        sorted[i] = values[order[i]];
        blockOfSorted[i] = blockOf[order[i]];
      }
      drawn = new int[blocks];
    }

    /** Draws as many blocks as there are, with replacement, and the quantile of their values. */
    double resampledQuantile(double q, SplittableRandom random) {
      Arrays.fill(drawn, 0);
      long n = 0;
      for (int i = 0; i < drawn.length; i++) {
        int k = random.nextInt(drawn.length);
        drawn[k]++;
        n += sizes[k];
      }
      long wanted = Math.max(1, Math.min(n, (long) Math.ceil(q * n - 1e-9)));
      long seen = 0;
      for (int i = 0; i < sorted.length; i++) {
        seen += drawn[blockOfSorted[i]];
        if (seen >= wanted) {
          return sorted[i];
        }
      }
      return sorted[sorted.length - 1];
    }
  }
}
