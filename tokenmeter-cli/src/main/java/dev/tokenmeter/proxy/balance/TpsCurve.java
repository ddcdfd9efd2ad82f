package dev.tokenmeter.proxy.balance;

import java.util.Arrays;

/**
 * One upstream's live TPS curve: per-user decode TPS ({@code 1 / TPOT}, tokens/s) by the
 * concurrency a request started at (the requests already in flight to that upstream, plus itself).
 *
 * <p>Learning: each concurrency keeps an exponentially decayed mean of what requests started at it
 * achieved ({@code mean += alpha (x - mean)}, {@code alpha = 1 / n} for the first {@link
 * #WINDOW} observations, then {@code 1 / WINDOW}: older traffic counts less and less). A seed (a
 * bench run's curve) enters as {@link #SEED_WEIGHT} observations, so live traffic soon outweighs
 * it.
 *
 * <p>Prediction: per-user TPS cannot rise with concurrency, so the observed means are smoothed to
 * a non-increasing curve by pool-adjacent-violators (weighted by observations), linear between
 * observed concurrencies, flat below the lowest, and above the highest observed {@code k} it falls
 * as {@code tps(k) * sqrt(k / c)}: half-way, in logarithms, between a flat curve and a saturated
 * upstream whose aggregate throughput no longer grows. That tail is a cautious guess, not a
 * measurement; it makes the router try higher concurrencies a little at a time.
 *
 * <p>Thread-safe: writers (record threads) synchronize and publish a new immutable prediction
 * array; {@link #predict} is one volatile read and an index, wait-free, for the event loop.
 */
public final class TpsCurve {
  /** The highest concurrency tracked; higher ones count as this one. */
  public static final int MAX_CONCURRENCY = 512;

  /** Observations after which each new one weighs {@code 1 / WINDOW}. */
  static final int WINDOW = 20;

  /** How many observations a seed point counts as. */
  static final int SEED_WEIGHT = 3;

  private final double[] mean = new double[MAX_CONCURRENCY + 1];
  private final int[] count = new int[MAX_CONCURRENCY + 1];
  private long observations;
  /** Predicted TPS by concurrency (index 0 unused), or null while nothing is known. */
  private volatile double[] predicted;

  /** Learns one finished request: it started at {@code concurrency} and decoded at {@code tps}. */
  public synchronized void observe(int concurrency, double tps) {
    if (!(tps > 0) || Double.isInfinite(tps) || concurrency < 1) {
      return;
    }
    int c = Math.min(concurrency, MAX_CONCURRENCY);
    count[c] = Math.min(count[c] + 1, WINDOW);
    mean[c] += (tps - mean[c]) / count[c];
    observations++;
    publish();
  }

  /** Seeds the point {@code (concurrency, tps)} from a bench run, as {@link #SEED_WEIGHT} observations. */
  public synchronized void seed(int concurrency, double tps) {
    if (!(tps > 0) || Double.isInfinite(tps) || concurrency < 1) {
      throw new IllegalArgumentException("a seed point needs concurrency >= 1 and TPS > 0, got "
          + concurrency + " and " + tps);
    }
    int c = Math.min(concurrency, MAX_CONCURRENCY);
    count[c] = SEED_WEIGHT;
    mean[c] = tps;
    publish();
  }

  /** Requests learned from live traffic (seeds not counted). */
  public synchronized long observations() {
    return observations;
  }

  /** True while neither traffic nor a seed has given a point. Wait-free. */
  public boolean cold() {
    return predicted == null;
  }

  /** Predicted per-user decode TPS at {@code concurrency}, or NaN while {@link #cold()}. Wait-free. */
  public double predict(int concurrency) {
    double[] p = predicted;
    return p == null ? Double.NaN : p[Math.clamp(concurrency, 1, MAX_CONCURRENCY)];
  }

  private void publish() {
    predicted = smooth(mean, count);
  }

  /** The non-increasing prediction from per-concurrency means and weights; null when none. */
  static double[] smooth(double[] mean, int[] weight) {
    int n = 0;
    int[] at = new int[mean.length];
    double[] value = new double[mean.length];
    double[] w = new double[mean.length];
    int[] first = new int[mean.length];
    // Pool adjacent violators: blocks of consecutive observed points, each at its weighted mean.
    for (int c = 1; c < mean.length; c++) {
      if (weight[c] == 0) {
        continue;
      }
      value[n] = mean[c];
      w[n] = weight[c];
      first[n] = c;
      n++;
      while (n > 1 && value[n - 2] < value[n - 1]) {
        double total = w[n - 2] + w[n - 1];
        value[n - 2] = (value[n - 2] * w[n - 2] + value[n - 1] * w[n - 1]) / total;
        w[n - 2] = total;
        n--;
      }
    }
    if (n == 0) {
      return null;
    }
    // Every observed concurrency takes its block's value.
    double[] pointValue = new double[mean.length];
    int points = 0;
    for (int b = 0; b < n; b++) {
      int end = b + 1 < n ? first[b + 1] : mean.length;
      for (int c = first[b]; c < end; c++) {
        if (weight[c] > 0) {
          at[points] = c;
          pointValue[points++] = value[b];
        }
      }
    }
    double[] out = new double[mean.length];
    Arrays.fill(out, 1, at[0] + 1, pointValue[0]);
    for (int i = 1; i < points; i++) {
      int lo = at[i - 1];
      int hi = at[i];
      for (int c = lo + 1; c <= hi; c++) {
        out[c] = pointValue[i - 1] + (pointValue[i] - pointValue[i - 1]) * (c - lo) / (hi - lo);
      }
    }
    int last = at[points - 1];
    for (int c = last + 1; c < mean.length; c++) {
      out[c] = pointValue[points - 1] * Math.sqrt((double) last / c);
    }
    return out;
  }
}
