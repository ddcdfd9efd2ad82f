package dev.tokenmeter.core.analysis;

/**
 * Fisher's exact test on a 2×2 table, two-sided: do two runs fail at different rates? Used for error
 * rates, where failures are often few (a normal approximation is poor below about 5 expected
 * failures per side). Stateless.
 *
 * <p>With the margins fixed, the failures of run a follow the hypergeometric distribution; the
 * p-value sums the probabilities of every table no more likely than the observed one (R's {@code
 * fisher.test}, with its relative tolerance 1e-7 for ties in probability). Log-factorials are summed
 * once up to the table total, so a table of 10⁶ requests costs a few milliseconds.
 */
public final class FisherExact {
  private static final double RELATIVE_TOLERANCE = 1 + 1e-7;

  private FisherExact() {}

  /**
   * Two-sided p-value for {@code failedA} of {@code totalA} against {@code failedB} of {@code
   * totalB}; NaN when a run has no requests.
   */
  public static double twoSided(long failedA, long totalA, long failedB, long totalB) {
    if (totalA <= 0 || totalB <= 0) {
      return Double.NaN;
    }
    if (failedA < 0 || failedA > totalA || failedB < 0 || failedB > totalB) {
      throw new IllegalArgumentException("failures must lie within 0..total");
    }
    int n = Math.toIntExact(totalA + totalB);
    int failed = Math.toIntExact(failedA + failedB);
    int rowA = Math.toIntExact(totalA);
    double[] logFactorial = new double[n + 1];
    for (int i = 2; i <= n; i++) {
      logFactorial[i] = logFactorial[i - 1] + Math.log(i);
    }
    int lo = Math.max(0, failed - (n - rowA));
    int hi = Math.min(failed, rowA);
    double observed = logProbability((int) failedA, rowA, failed, n, logFactorial);
    double p = 0;
    for (int x = lo; x <= hi; x++) {
      double lp = logProbability(x, rowA, failed, n, logFactorial);
      if (lp <= observed + Math.log(RELATIVE_TOLERANCE)) {
        p += Math.exp(lp);
      }
    }
    return Math.min(1.0, p);
  }

  /** log P(X = x) for X hypergeometric: x failures among {@code row} draws from n with k failed. */
  private static double logProbability(int x, int row, int k, int n, double[] lf) {
    return lf[k] - lf[x] - lf[k - x] + lf[n - k] - lf[row - x] - lf[n - k - row + x]
        - (lf[n] - lf[row] - lf[n - row]);
  }
}
