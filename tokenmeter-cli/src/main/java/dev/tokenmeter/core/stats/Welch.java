package dev.tokenmeter.core.stats;

import org.apache.commons.statistics.distribution.TDistribution;
import org.apache.commons.statistics.inference.DataDispersion;
import org.apache.commons.statistics.inference.TTest;

/**
 * Welch's two-sample t-test, for comparing the means of two small sets of values with unequal
 * variances: the per-run percentiles of two runs' repeats, or the per-block medians of two runs.
 * Pure functions, thread-safe.
 *
 * <pre>
 * design notes
 * - The statistic, its Welch-Satterthwaite degrees of freedom (not whole) and the two-sided
 *   p-value are Apache Commons Statistics' TTest (heteroscedastic): t = (m_B − m_A) / se,
 *   se = sqrt(s_A²/n_A + s_B²/n_B) (sample variances, n − 1),
 *   df = se⁴ / ((s_A²/n_A)²/(n_A − 1) + (s_B²/n_B)²/(n_B − 1)). The library has no interval, so
 *   the interval of m_B − m_A at level L is ± t((1 + L)/2; df) · se here, with its
 *   TDistribution. As SciPy's ttest_ind(b, a, equal_var=False).
 * - se = 0 (every value of each side equal, as a deterministic simulator gives): the means differ
 *   for certain (p = 0) or not at all (p = 1); the interval is the point. The library would
 *   divide by zero there. Told by the values, not by a computed variance, which rounding can
 *   leave a hair above zero for equal values.
 * </pre>
 */
public final class Welch {
  private static final TTest TEST = TTest.withDefaults().with(DataDispersion.HETEROSCEDASTIC);

  private Welch() {}

  /**
   * The test's outcome.
   *
   * @param difference {@code mean(b) − mean(a)}
   * @param t the t statistic, NaN when {@code se = 0}
   * @param df Welch-Satterthwaite degrees of freedom, NaN when {@code se = 0}
   * @param pValue two-sided p-value
   * @param low lower end of the interval of the difference
   * @param high upper end
   */
  public record Result(double difference, double t, double df, double pValue, double low, double high) {}

  /**
   * Tests whether {@code b}'s mean differs from {@code a}'s, with an interval of the difference at
   * {@code level} (0.95).
   *
   * @throws IllegalArgumentException when a side has fewer than 2 values, or {@code level} is not in (0, 1)
   */
  public static Result test(double[] a, double[] b, double level) {
    if (a.length < 2 || b.length < 2) {
      throw new IllegalArgumentException("Welch's test needs 2 values per side, got " + a.length + " and " + b.length);
    }
    if (!(level > 0 && level < 1)) {
      throw new IllegalArgumentException("level must be in (0, 1), got " + level);
    }
    if (allEqual(a) && allEqual(b)) {
      double diff = b[0] - a[0];
      return new Result(diff, Double.NaN, Double.NaN, diff == 0 ? 1 : 0, diff, diff);
    }
    double ma = mean(a);
    double mb = mean(b);
    double diff = mb - ma;
    double se = Math.sqrt(variance(a, ma) / a.length + variance(b, mb) / b.length);
    // The library tests x − y; b − a keeps the sign of the difference printed.
    TTest.Result r = TEST.test(b, a);
    double df = r.getDegreesOfFreedom();
    double half = TDistribution.of(df).inverseCumulativeProbability((1 + level) / 2) * se;
    return new Result(diff, r.getStatistic(), df, r.getPValue(), diff - half, diff + half);
  }

  private static boolean allEqual(double[] v) {
    for (double x : v) {
      if (Double.compare(x, v[0]) != 0) {
        return false;
      }
    }
    return true;
  }

  static double mean(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x;
    }
    return s / v.length;
  }

  private static double variance(double[] v, double mean) {
    double s = 0;
    for (double x : v) {
      s += (x - mean) * (x - mean);
    }
    return s / (v.length - 1);
  }
}
