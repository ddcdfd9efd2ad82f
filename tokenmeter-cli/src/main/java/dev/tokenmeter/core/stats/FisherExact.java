package dev.tokenmeter.core.stats;

import org.apache.commons.statistics.inference.FisherExactTest;

/**
 * Fisher's exact test on a 2×2 table, two-sided: do two runs fail at different rates? Used for error
 * rates, where failures are often few (a normal approximation is poor below about 5 expected
 * failures per side). Stateless.
 *
 * <p>The test is Apache Commons Statistics' {@link FisherExactTest}: with the margins fixed, the
 * failures of run a follow the hypergeometric distribution, and the two-sided p-value sums the
 * probabilities of every table no more likely than the observed one (as R's {@code fisher.test}
 * and SciPy's {@code fisher_exact}). This class turns two runs' counts into the table.
 */
public final class FisherExact {
  private static final FisherExactTest TEST = FisherExactTest.withDefaults();

  private FisherExact() {}

  /**
   * Two-sided p-value for {@code failedA} of {@code totalA} against {@code failedB} of {@code
   * totalB}; NaN when a run has no requests.
   *
   * @throws IllegalArgumentException when failures are not within 0..total
   * @throws ArithmeticException when the two runs hold more than 2³¹ − 1 requests together
   */
  public static double twoSided(long failedA, long totalA, long failedB, long totalB) {
    if (totalA <= 0 || totalB <= 0) {
      return Double.NaN;
    }
    if (failedA < 0 || failedA > totalA || failedB < 0 || failedB > totalB) {
      throw new IllegalArgumentException("failures must lie within 0..total");
    }
    Math.toIntExact(totalA + totalB);
    int[][] table = {
      {(int) failedA, (int) (totalA - failedA)},
      {(int) failedB, (int) (totalB - failedB)}
    };
    return TEST.test(table).getPValue();
  }
}
