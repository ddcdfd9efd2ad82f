package dev.tokenmeter.scrape;

import java.util.Arrays;

/**
 * A Prometheus histogram: cumulative counts per upper bound ({@code le}), ascending, the last
 * normally {@code +Inf}; the sum and count of observations. Immutable (the arrays are not copied
 * out: callers must not modify them).
 *
 * @param bounds upper bounds, ascending, in the metric's unit
 * @param cumulative observations at or below each bound
 * @param sum sum of the observations; NaN when the server did not send it
 * @param count observations
 */
public record Buckets(double[] bounds, double[] cumulative, double sum, double count) {
  public Buckets {
    if (bounds.length != cumulative.length || bounds.length == 0) {
      throw new IllegalArgumentException("one cumulative count per bound, at least one bound");
    }
  }

  /**
   * This histogram minus an earlier scrape of it: the observations made in between. When the
   * bounds differ or a count went down (the server restarted), this histogram alone.
   */
  public Buckets minus(Buckets earlier) {
    if (earlier == null || !Arrays.equals(bounds, earlier.bounds) || count < earlier.count) {
      return this;
    }
    double[] delta = new double[bounds.length];
    for (int i = 0; i < delta.length; i++) {
      delta[i] = cumulative[i] - earlier.cumulative[i];
      if (delta[i] < 0) {
        return this;
      }
    }
    return new Buckets(bounds, delta, sum - earlier.sum, count - earlier.count);
  }

  /**
   * The {@code q} quantile (0..1), interpolated linearly within the bucket it falls in, as
   * Prometheus's {@code histogram_quantile} does: the lowest bucket's lower bound is 0, and a
   * quantile in the {@code +Inf} bucket is the highest finite bound. NaN without observations.
   */
  public double quantile(double q) {
    double total = cumulative[cumulative.length - 1];
    if (!(total > 0)) {
      return Double.NaN;
    }
    double rank = q * total;
    for (int i = 0; i < bounds.length; i++) {
      if (cumulative[i] >= rank) {
        if (Double.isInfinite(bounds[i])) {
          return i == 0 ? Double.NaN : bounds[i - 1];
        }
        double lower = i == 0 ? 0 : bounds[i - 1];
        double below = i == 0 ? 0 : cumulative[i - 1];
        double inBucket = cumulative[i] - below;
        return inBucket <= 0 ? bounds[i] : lower + (bounds[i] - lower) * (rank - below) / inBucket;
      }
    }
    return bounds[bounds.length - 1];
  }

  /**
   * The bounds {@code [lower, upper]} of the bucket the {@code q} quantile falls in (the lowest
   * starts at 0); NaNs without observations or when it falls in the {@code +Inf} bucket.
   */
  public double[] bucketOf(double q) {
    double total = cumulative[cumulative.length - 1];
    double rank = q * total;
    for (int i = 0; total > 0 && i < bounds.length; i++) {
      if (cumulative[i] >= rank) {
        return Double.isInfinite(bounds[i]) ? new double[] {Double.NaN, Double.NaN}
            : new double[] {i == 0 ? 0 : bounds[i - 1], bounds[i]};
      }
    }
    return new double[] {Double.NaN, Double.NaN};
  }

  /** The mean observation, sum / count; NaN without observations or without a sum. */
  public double mean() {
    return count > 0 ? sum / count : Double.NaN;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Buckets b && Arrays.equals(bounds, b.bounds) && Arrays.equals(cumulative, b.cumulative)
        && Double.compare(sum, b.sum) == 0 && Double.compare(count, b.count) == 0;
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(bounds) + Arrays.hashCode(cumulative);
  }

  @Override
  public String toString() {
    return "Buckets" + Arrays.toString(bounds) + "=" + Arrays.toString(cumulative) + " sum " + sum + " count " + count;
  }
}
