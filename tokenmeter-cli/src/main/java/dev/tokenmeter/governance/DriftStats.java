package dev.tokenmeter.governance;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.statistics.inference.KolmogorovSmirnovTest;

/**
 * The statistics behind a drift decision: the two-sample Kolmogorov-Smirnov test and the population
 * stability index (PSI). Stateless; inputs are never modified.
 *
 * <p>Design notes. KS asks whether two samples come from one distribution; with thousands of
 * requests it rejects for differences nobody cares about, so a drift needs both a KS rejection and
 * a PSI at or above a threshold (0.2, the conventional "significant shift"; 0.1 to 0.2 is usually
 * read as moderate). PSI bins are the baseline's deciles, so each bin holds about a tenth of the
 * benchmark: edges are the distinct values among the baseline's 10th, 20th, ..., 90th percentiles
 * (nearest rank), and the bins are {@code (-inf, e1], (e1, e2], ..., (ek, +inf)}. A fixed-length
 * benchmark (every prompt 512 tokens) has one edge and two bins. A proportion of 0 is floored at
 * {@value #FLOOR} before the logarithm, as is usual, so PSI stays finite.
 */
public final class DriftStats {
  /** Smallest proportion a bin counts with in the PSI (an empty bin would make it infinite). */
  public static final double FLOOR = 1e-4;

  /** Seed of the permutation sampling KS uses for tied samples: the same data give the same p. */
  private static final long KS_SEED = 0x5eed_d71f7L;

  private DriftStats() {}

  /**
   * A two-sample KS test.
   *
   * @param statistic D, the largest gap between the two empirical CDFs, 0..1
   * @param pValue two-sided p-value (exact for small samples, asymptotic for large ones, estimated
   *     by random permutations when samples share values, as token counts do)
   */
  public record Ks(double statistic, double pValue) {}

  /**
   * A PSI over stated bins.
   *
   * @param value {@code Σ (live − base) · ln(live / base)} over the bins' proportions
   * @param edges upper edges of all bins but the last, in tokens
   */
  public record Psi(double value, double[] edges) {
    /** Number of bins: one more than the edges. */
    public int bins() {
      return edges.length + 1;
    }
  }

  /** KS test of {@code baseline} against {@code live}; both must be non-empty. */
  public static Ks ks(double[] baseline, double[] live) {
    SplittableRandom random = new SplittableRandom(KS_SEED);
    UniformRandomProvider rng = random::nextLong;
    var r = KolmogorovSmirnovTest.withDefaults().with(rng).test(baseline, live);
    return new Ks(r.getStatistic(), r.getPValue());
  }

  /** The baseline's decile edges (see the class comment), ascending and distinct. */
  public static double[] decileEdges(double[] baseline) {
    double[] sorted = baseline.clone();
    Arrays.sort(sorted);
    Set<Double> edges = new LinkedHashSet<>();
    for (int decile = 1; decile <= 9; decile++) {
      int rank = (int) Math.ceil(decile / 10.0 * sorted.length); // nearest rank, 1-based
      edges.add(sorted[Math.max(0, rank - 1)]);
    }
    double[] out = new double[edges.size()];
    int i = 0;
    for (double e : edges) {
      out[i++] = e;
    }
    // the largest baseline value as an edge leaves an empty last bin for the baseline: dropped
    return out.length > 1 && out[out.length - 1] == sorted[sorted.length - 1] ? Arrays.copyOf(out, out.length - 1) : out;
  }

  /** PSI of {@code live} against {@code baseline} over the baseline's decile bins. */
  public static Psi psi(double[] baseline, double[] live) {
    double[] edges = decileEdges(baseline);
    return new Psi(psiOfShares(proportions(baseline, edges), proportions(live, edges)), edges);
  }

  /** Share of {@code values} in each bin of {@code edges}. */
  static double[] proportions(double[] values, double[] edges) {
    double[] p = new double[edges.length + 1];
    for (double v : values) {
      int i = Arrays.binarySearch(edges, v);
      p[i >= 0 ? i : -i - 1] += 1;
    }
    for (int i = 0; i < p.length; i++) {
      p[i] /= values.length;
    }
    return p;
  }

  /** PSI between two proportion vectors over the same bins, each proportion floored at {@link #FLOOR}. */
  public static double psiOfShares(double[] base, double[] live) {
    double sum = 0;
    for (int i = 0; i < base.length; i++) {
      double b = Math.max(FLOOR, base[i]);
      double l = Math.max(FLOOR, live[i]);
      sum += (l - b) * Math.log(l / b);
    }
    return sum;
  }

  /** PSI between two category counts (models), over the union of their categories. */
  public static double psi(Map<String, Long> base, Map<String, Long> live) {
    Set<String> names = new LinkedHashSet<>(base.keySet());
    names.addAll(live.keySet());
    double nb = base.values().stream().mapToLong(Long::longValue).sum();
    double nl = live.values().stream().mapToLong(Long::longValue).sum();
    double[] b = new double[names.size()];
    double[] l = new double[names.size()];
    int i = 0;
    for (String n : names) {
      b[i] = base.getOrDefault(n, 0L) / nb;
      l[i++] = live.getOrDefault(n, 0L) / nl;
    }
    return psiOfShares(b, l);
  }

  /** The median (mean of the middle two for an even count); NaN when empty. */
  public static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] s = values.clone();
    Arrays.sort(s);
    int m = s.length / 2;
    return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
  }
}
