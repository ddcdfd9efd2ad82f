package dev.tokenmeter.core.stats;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Bootstrap confidence intervals for the difference of a quantile between two samples ({@code
 * q(b) − q(a)}), e.g. of p99 TTFT. Deterministic for a seed. Stateless.
 *
 * <p>Method: percentile bootstrap. Each of {@code resamples} rounds draws n values with
 * replacement from each sample and takes the difference of their quantiles; the interval is the
 * {@code (1−level)/2} and {@code (1+level)/2} quantiles of those differences. A resample is drawn
 * as counts over the sorted sample (n draws, one pass), so a round costs O(n), not O(n log n).
 * Quantiles are nearest-rank, as HdrHistogram reports them: the value at rank ⌈q·n⌉.
 *
 * <p>The two-sided bootstrap p-value is {@code min(1, 2·min(#{d ≤ 0}+1, #{d ≥ 0}+1)/(R+1))} over
 * the R resampled differences d: how often the resampled difference falls on the other side of
 * zero. It cannot go below 2/(R+1) (0.002 at R = 1,000).
 *
 * <p>A quantile needs values beyond it: the estimate is unreliable when fewer than {@value
 * #MIN_TAIL} values lie beyond q on its side (p99 needs 500 values); {@link #enoughFor} says so.
 */
public final class QuantileBootstrap {
  /** Fewest values beyond a quantile, on its tail side, for a bootstrap of it to be trusted. */
  public static final int MIN_TAIL = 5;

  private QuantileBootstrap() {}

  /**
   * A bootstrap interval.
   *
   * @param estimate {@code q(b) − q(a)} on the samples themselves
   * @param low lower end of the interval
   * @param high upper end
   * @param pValue two-sided bootstrap p-value of "no difference"
   */
  public record Interval(double estimate, double low, double high, double pValue) {}

  /** Whether a sample of {@code n} values has {@value #MIN_TAIL} beyond quantile {@code q}. */
  public static boolean enoughFor(int n, double q) {
    return Math.min(q, 1 - q) * n >= MIN_TAIL;
  }

  /** The nearest-rank {@code q}-quantile of a sorted sample. */
  public static double quantile(double[] sorted, double q) {
    return sorted[rank(sorted.length, q)];
  }

  /**
   * The interval for {@code q(b) − q(a)} at confidence {@code level} (0.95).
   *
   * @throws IllegalArgumentException when a sample is empty
   */
  public static Interval difference(
      double[] a, double[] b, double q, double level, int resamples, long seed) {
    if (a.length == 0 || b.length == 0) {
      throw new IllegalArgumentException("bootstrap of an empty sample");
    }
    double[] sa = a.clone();
    double[] sb = b.clone();
    Arrays.sort(sa);
    Arrays.sort(sb);
    SplittableRandom random = new SplittableRandom(seed);
    int[] countsA = new int[sa.length];
    int[] countsB = new int[sb.length];
    double[] diffs = new double[resamples];
    for (int r = 0; r < resamples; r++) {
      diffs[r] = resampledQuantile(sb, countsB, q, random) - resampledQuantile(sa, countsA, q, random);
    }
    return interval(quantile(sb, q) - quantile(sa, q), diffs, level);
  }

  /**
   * The percentile interval at {@code level} of the resampled differences {@code diffs} (sorted
   * here) and the two-sided p-value of "no difference", around the sample's own {@code estimate}.
   */
  static Interval interval(double estimate, double[] diffs, double level) {
    int atOrBelow = 0;
    int atOrAbove = 0;
    for (double d : diffs) {
      atOrBelow += d <= 0 ? 1 : 0;
      atOrAbove += d >= 0 ? 1 : 0;
    }
    int resamples = diffs.length;
    Arrays.sort(diffs);
    double alpha = 1 - level;
    double low = diffs[Math.max(0, (int) Math.floor(alpha / 2 * resamples))];
    double high = diffs[Math.min(resamples - 1, (int) Math.ceil((1 - alpha / 2) * resamples) - 1)];
    double p = Math.min(1.0, 2.0 * (Math.min(atOrBelow, atOrAbove) + 1) / (resamples + 1));
    return new Interval(estimate, low, high, p);
  }

  private static double resampledQuantile(
      double[] sorted, int[] counts, double q, SplittableRandom random) {
    int n = sorted.length;
    Arrays.fill(counts, 0);
    for (int i = 0; i < n; i++) {
      counts[random.nextInt(n)]++;
    }
    int wanted = rank(n, q) + 1; // 1-based rank of the quantile within the resample
    int seen = 0;
    for (int i = 0; i < n; i++) {
      seen += counts[i];
      if (seen >= wanted) {
        return sorted[i];
      }
    }
    return sorted[n - 1];
  }

  /** 0-based index of the nearest-rank q-quantile among n values: ⌈q·n⌉ − 1, at least 0. */
  private static int rank(int n, double q) {
    return Math.max(0, Math.min(n - 1, (int) Math.ceil(q * n - 1e-9) - 1));
  }
}
