package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.analysis.TimeSeries;
import java.util.Arrays;

/**
 * Growable per-second accumulators behind {@link TimeSeries}: memory O(seconds), amortised O(1)
 * per event. Second {@code s} holds events at {@code [s, s+1)} s after the origin; events before
 * the origin go to second 0. Single writer, not thread-safe.
 */
final class PerSecondSeries {
  private static final long SECOND = TimeSeries.INTERVAL_NANOS;

  /**
   * Longest stage the series holds: 7 days, 604,800 points, 29 MB in six arrays. A time beyond it
   * is a misused clock, refused rather than allocated.
   */
  static final int MAX_SECONDS = 7 * 24 * 3600;

  private final long originNanos;
  private long[] outputTokens = new long[64];
  private long[] completed = new long[64];
  private long[] failed = new long[64];
  private long[] inFlightNanos = new long[64];
  private long[] firstTokens = new long[64];
  private long[] ttftSumNanos = new long[64];
  private int used;

  PerSecondSeries(long originNanos) {
    this.originNanos = originNanos;
  }

  void addTokens(long nanos, long tokens) {
    outputTokens[slot(nanos)] += tokens;
  }

  void ended(long nanos, boolean succeeded) {
    int s = slot(nanos);
    if (succeeded) {
      completed[s]++;
    } else {
      failed[s]++;
    }
  }

  void firstToken(long nanos, long ttftNanos) {
    int s = slot(nanos);
    firstTokens[s]++;
    ttftSumNanos[s] += ttftNanos;
  }

  /** {@code level} requests were in flight over {@code [fromNanos, toNanos)}. */
  void inFlight(long fromNanos, long toNanos, int level) {
    if (level == 0 || toNanos <= fromNanos) {
      return;
    }
    long a = Math.max(0, fromNanos - originNanos);
    long b = Math.max(0, toNanos - originNanos);
    while (a < b) {
      int s = slot(a + originNanos);
      long secondEnd = (s + 1L) * SECOND;
      long upTo = Math.min(b, secondEnd);
      inFlightNanos[s] += level * (upTo - a);
      a = upTo;
    }
  }

  /** The immutable series of a stage {@code stageLengthNanos} long. */
  TimeSeries build(long stageLengthNanos, long windowStartOffsetNanos, long windowEndOffsetNanos) {
    int n = Math.max(used, checked((stageLengthNanos + SECOND - 1) / SECOND));
    ensure(n - 1);
    double[] meanInFlight = new double[n];
    for (int s = 0; s < n; s++) {
      long covered = Math.min(SECOND, stageLengthNanos - s * SECOND);
      meanInFlight[s] = (double) inFlightNanos[s] / (covered > 0 ? covered : SECOND);
    }
    return new TimeSeries(
        stageLengthNanos,
        windowStartOffsetNanos,
        windowEndOffsetNanos,
        Arrays.copyOf(outputTokens, n),
        Arrays.copyOf(completed, n),
        Arrays.copyOf(failed, n),
        meanInFlight,
        Arrays.copyOf(firstTokens, n),
        Arrays.copyOf(ttftSumNanos, n));
  }

  private int slot(long nanos) {
    long d = nanos - originNanos;
    int s = d <= 0 ? 0 : checked(d / SECOND);
    ensure(s);
    used = Math.max(used, s + 1);
    return s;
  }

  private static int checked(long seconds) {
    if (seconds > MAX_SECONDS) {
      throw new IllegalArgumentException(
          "time " + seconds + " s after the stage start exceeds " + MAX_SECONDS + " s");
    }
    return (int) seconds;
  }

  private void ensure(int s) {
    if (s < outputTokens.length) {
      return;
    }
    int n = Math.max(outputTokens.length * 2, s + 1);
    outputTokens = Arrays.copyOf(outputTokens, n);
    completed = Arrays.copyOf(completed, n);
    failed = Arrays.copyOf(failed, n);
    inFlightNanos = Arrays.copyOf(inFlightNanos, n);
    firstTokens = Arrays.copyOf(firstTokens, n);
    ttftSumNanos = Arrays.copyOf(ttftSumNanos, n);
  }
}
