package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.Metric;
import org.HdrHistogram.Histogram;

/**
 * The points the pages draw a cumulative distribution through: a histogram's value at every whole
 * percentile from 0 to 100 plus 99.9 and 99.99 (103 points), in the metric's report unit. Shared by
 * report.html and compare.json (whose CDFs compare.html overlays), so both draw the same curve.
 * Stateless.
 */
public final class Cdf {
  /** The percentiles, ascending: 0, 1, ..., 99, 99.9, 99.99, 100. */
  private static final double[] PERCENTILES = percentiles();

  private Cdf() {}

  /** How many points a non-empty histogram gives: 103. */
  public static int size() {
    return PERCENTILES.length;
  }

  /** The fraction (0 to 1) of point {@code i}. */
  public static double fraction(int i) {
    return PERCENTILES[i] / 100;
  }

  /**
   * The values at the percentiles, in {@code m}'s report unit (ms, tokens/s); empty for a null or
   * empty histogram.
   */
  public static double[] values(Histogram h, Metric m) {
    if (h == null || h.getTotalCount() == 0) {
      return new double[0];
    }
    double unit = m.unit().perReportUnit();
    double[] v = new double[PERCENTILES.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = h.getValueAtPercentile(PERCENTILES[i]) / unit;
    }
    return v;
  }

  private static double[] percentiles() {
    double[] p = new double[103];
    for (int i = 0; i <= 100; i++) {
      p[i] = i;
    }
    p[101] = 99.9;
    p[102] = 99.99;
    java.util.Arrays.sort(p);
    return p;
  }
}
