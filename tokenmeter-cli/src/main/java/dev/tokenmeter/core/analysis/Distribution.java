package dev.tokenmeter.core.analysis;

import org.HdrHistogram.AbstractHistogram;

/**
 * Summary statistics of one histogram, in a report unit (milliseconds, tokens per second, tokens).
 * The low percentiles {@code p1, p5, p10} are the slow tail of speed metrics such as per-request
 * decode TPS, where small is bad.
 *
 * <p>Values come from an HdrHistogram with 3 significant digits, so each is within 0.1% of the
 * exact value: percentiles and max are the highest value equivalent to the recorded one, min the
 * lowest, mean HdrHistogram's bucket-median mean. An empty histogram gives count 0 and NaN
 * everywhere else (written as {@code null} in JSON).
 */
public record Distribution(
    long count,
    double min,
    double mean,
    double p1,
    double p5,
    double p10,
    double p50,
    double p90,
    double p95,
    double p99,
    double p999,
    double max) {

  /** The distribution of no values. */
  public static final Distribution EMPTY =
      new Distribution(
          0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
          Double.NaN, Double.NaN, Double.NaN, Double.NaN);

  /**
   * Summarises {@code h}, dividing every value by {@code perReportUnit} (1e6 turns nanoseconds
   * into milliseconds).
   */
  public static Distribution of(AbstractHistogram h, double perReportUnit) {
    if (h.getTotalCount() == 0) {
      return EMPTY;
    }
    double s = perReportUnit;
    return new Distribution(
        h.getTotalCount(),
        h.getMinValue() / s,
        h.getMean() / s,
        h.getValueAtPercentile(1) / s,
        h.getValueAtPercentile(5) / s,
        h.getValueAtPercentile(10) / s,
        h.getValueAtPercentile(50) / s,
        h.getValueAtPercentile(90) / s,
        h.getValueAtPercentile(95) / s,
        h.getValueAtPercentile(99) / s,
        h.getValueAtPercentile(99.9) / s,
        h.getMaxValue() / s);
  }

  /** Summarises a histogram of {@code metric}, in the metric's report unit. */
  public static Distribution of(AbstractHistogram h, Metric metric) {
    return of(h, metric.unit().perReportUnit());
  }
}
