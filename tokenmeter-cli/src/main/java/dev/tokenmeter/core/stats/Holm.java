package dev.tokenmeter.core.stats;

import java.util.Arrays;

/**
 * Holm's step-down correction for testing several metrics at once: it keeps the chance of calling
 * any one of them significant by luck at most α (the family-wise error rate), where uncorrected
 * p-values over 9 metrics would give up to 1 − 0.95⁹ = 37%. Uniformly more powerful than
 * Bonferroni, and valid whatever the dependence between the tests (Holm 1979). Stateless.
 */
public final class Holm {
  private Holm() {}

  /**
   * Adjusted p-values, in the order given: the i-th smallest of m p-values becomes {@code max_{j≤i}
   * min(1, (m − j + 1)·p_(j))}. NaN entries (tests not done) pass through and do not count in m.
   */
  public static double[] adjust(double[] p) {
    double[] out = new double[p.length];
    Arrays.fill(out, Double.NaN);
    Integer[] order =
        java.util.stream.IntStream.range(0, p.length).filter(i -> !Double.isNaN(p[i])).boxed()
            .sorted((x, y) -> Double.compare(p[x], p[y])).toArray(Integer[]::new);
    int m = order.length;
    double running = 0;
    for (int j = 0; j < m; j++) {
      running = Math.max(running, Math.min(1.0, (m - j) * p[order[j]]));
      out[order[j]] = running;
    }
    return out;
  }
}
