package dev.tokenmeter.core.analysis;

/**
 * Welch's two-sample t-test, for comparing the means of two small sets of values with unequal
 * variances: the per-run percentiles of two runs' repeats, or the per-block medians of two runs.
 * Pure functions, thread-safe.
 *
 * <pre>
 * design notes
 * - t = (m_B − m_A) / se, se = sqrt(s_A²/n_A + s_B²/n_B) (sample variances, n − 1);
 *   df = se⁴ / ((s_A²/n_A)²/(n_A − 1) + (s_B²/n_B)²/(n_B − 1)) (Welch-Satterthwaite), not whole;
 *   p = 2 · (1 − F(|t|; df)) with {@link StudentT#cdf(double, double)}; the interval of m_B − m_A
 *   at level L is ± t((1 + L)/2; df) · se. As SciPy's ttest_ind(b, a, equal_var=False).
 * - se = 0 (every value of each side equal, as a deterministic simulator gives): the means differ
 *   for certain (p = 0) or not at all (p = 1); the interval is the point.
 * </pre>
 */
public final class Welch {
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
    double ma = mean(a);
    double mb = mean(b);
    double va = variance(a, ma) / a.length;
    double vb = variance(b, mb) / b.length;
    double diff = mb - ma;
    double se = Math.sqrt(va + vb);
    if (se == 0) {
      return new Result(diff, Double.NaN, Double.NaN, diff == 0 ? 1 : 0, diff, diff);
    }
    double t = diff / se;
    double df = (va + vb) * (va + vb) / (va * va / (a.length - 1) + vb * vb / (b.length - 1));
    double p = Math.min(1, 2 * StudentT.cdf(-Math.abs(t), df));
    double half = StudentT.quantile((1 + level) / 2, df) * se;
    return new Result(diff, t, df, p, diff - half, diff + half);
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
