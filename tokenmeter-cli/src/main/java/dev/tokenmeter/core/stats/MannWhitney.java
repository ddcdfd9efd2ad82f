package dev.tokenmeter.core.stats;

import org.apache.commons.statistics.inference.MannWhitneyUTest;
import org.apache.commons.statistics.inference.PValueMethod;

/**
 * The Mann-Whitney U test (Wilcoxon rank-sum test), two-sided: do values of {@code b} tend to be
 * larger or smaller than values of {@code a}? It assumes independent observations and nothing about
 * their distribution, which suits latencies (skewed, heavy-tailed). Stateless.
 *
 * <p>The test itself is Apache Commons Statistics' {@link MannWhitneyUTest} with its defaults, the
 * method of R's {@code wilcox.test} and SciPy's {@code mannwhitneyu}: ranks of the pooled sample,
 * ties given their mean rank; the <b>exact</b> null distribution when both samples have fewer than
 * {@value #EXACT_LIMIT} values and none is tied; otherwise the <b>normal approximation</b> with tie
 * correction {@code σ² = n_a n_b/12 · ((N+1) − Σ(t³−t)/(N(N−1)))} and continuity correction. This
 * class adds what a comparison prints beside the p-value, and the two cases the library leaves to
 * its caller:
 *
 * <ul>
 *   <li>Effect size: the common-language effect {@code P(B > A) + ½P(B = A) = U_b/(n_a n_b)}, 0.5
 *       when neither tends to be larger; the rank-biserial correlation is {@code 2·CL − 1}.
 *   <li>An empty sample gives NaN (the library refuses it); samples whose values are all one value
 *       give p = 1, no evidence either way (the library's normal approximation divides by a zero
 *       variance there).
 * </ul>
 */
public final class MannWhitney {
  /** Samples below this size (both) and free of ties get the exact p-value (the library's rule). */
  public static final int EXACT_LIMIT = 50;

  private static final MannWhitneyUTest TEST = MannWhitneyUTest.withDefaults();
  private static final MannWhitneyUTest ASYMPTOTIC = TEST.with(PValueMethod.ASYMPTOTIC);

  private MannWhitney() {}

  /**
   * The test's outcome.
   *
   * @param uA U of sample a: pairs with a's value larger, ties counting ½
   * @param pValue two-sided p-value; NaN when a sample is empty
   * @param exact whether {@code pValue} is exact
   * @param commonLanguage {@code P(B > A) + ½P(B = A)}; NaN when a sample is empty
   */
  public record Result(double uA, double pValue, boolean exact, double commonLanguage) {
    /** Rank-biserial correlation {@code 2·CL − 1}: +1 when every b exceeds every a. */
    public double rankBiserial() {
      return 2 * commonLanguage - 1;
    }
  }

  /**
   * Tests {@code a} against {@code b}; neither array is modified.
   *
   * @throws IllegalArgumentException when a value is NaN
   */
  public static Result test(double[] a, double[] b) {
    return test(a, b, /* allowExact= */ true);
  }

  /** As {@link #test(double[], double[])}; {@code allowExact = false} forces the approximation. */
  static Result test(double[] a, double[] b, boolean allowExact) {
    if (a.length == 0 || b.length == 0) {
      return new Result(Double.NaN, Double.NaN, false, Double.NaN);
    }
    double pairs = (double) a.length * b.length;
    if (allOneValue(a, b)) {
      return new Result(pairs / 2, 1.0, false, 0.5);
    }
    MannWhitneyUTest.Result r = (allowExact ? TEST : ASYMPTOTIC).test(a, b);
    double uA = r.getStatistic();
    boolean exact = allowExact && Math.max(a.length, b.length) < EXACT_LIMIT && !r.hasTiedValues();
    return new Result(uA, r.getPValue(), exact, (pairs - uA) / pairs);
  }

  private static boolean allOneValue(double[] a, double[] b) {
    double first = a[0];
    for (double v : a) {
      if (Double.compare(v, first) != 0) {
        return false;
      }
    }
    for (double v : b) {
      if (Double.compare(v, first) != 0) {
        return false;
      }
    }
    return true;
  }
}
