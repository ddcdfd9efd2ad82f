package dev.tokenmeter.core.analysis;

import java.util.Arrays;

/**
 * A stage's per-second series, immutable: second {@code s} covers {@code [s, s+1)} seconds after
 * the stage start, over every phase (warm-up, window, cool-down), so charts can show the whole
 * stage and shade the phases from {@link #windowStartOffsetNanos()} and {@link
 * #windowEndOffsetNanos()}.
 *
 * <ul>
 *   <li>output tokens: tokens whose chunk arrived in that second, from every request (failed ones'
 *       received chunks too), split over chunks as {@code RequestMetrics} does;
 *   <li>completed, failed: requests that ended in that second, any phase; requests the client
 *       cancelled (still running at the stage's end, or at Ctrl-C) are in neither;
 *   <li>mean in flight: time-weighted mean of requests in flight (sent, not ended) over the part
 *       of the second inside the stage;
 *   <li>first tokens, TTFT sum: requests whose first token arrived in that second and the sum of
 *       their TTFT ({@code firstToken − sent}), any phase and outcome.
 * </ul>
 *
 * The last second is partial when the stage length is not a whole number of seconds.
 */
public final class TimeSeries {
  /** Width of one point: one second. */
  public static final long INTERVAL_NANOS = 1_000_000_000L;

  private final long stageLengthNanos;
  private final long windowStartOffsetNanos;
  private final long windowEndOffsetNanos;
  private final long[] outputTokens;
  private final long[] completed;
  private final long[] failed;
  private final double[] meanInFlight;
  private final long[] firstTokens;
  private final long[] ttftSumNanos;

  /**
   * Arrays are copied and must all have the same length. Window offsets are nanoseconds from the
   * stage start, -1 when the window never started (or, for the end, never ended).
   */
  public TimeSeries(
      long stageLengthNanos,
      long windowStartOffsetNanos,
      long windowEndOffsetNanos,
      long[] outputTokens,
      long[] completed,
      long[] failed,
      double[] meanInFlight,
      long[] firstTokens,
      long[] ttftSumNanos) {
    int n = outputTokens.length;
    if (completed.length != n
        || failed.length != n
        || meanInFlight.length != n
        || firstTokens.length != n
        || ttftSumNanos.length != n) {
      throw new IllegalArgumentException("series of unequal length");
    }
    this.stageLengthNanos = stageLengthNanos;
    this.windowStartOffsetNanos = windowStartOffsetNanos;
    this.windowEndOffsetNanos = windowEndOffsetNanos;
    this.outputTokens = outputTokens.clone();
    this.completed = completed.clone();
    this.failed = failed.clone();
    this.meanInFlight = meanInFlight.clone();
    this.firstTokens = firstTokens.clone();
    this.ttftSumNanos = ttftSumNanos.clone();
  }

  /** Number of points. */
  public int seconds() {
    return outputTokens.length;
  }

  public long stageLengthNanos() {
    return stageLengthNanos;
  }

  /** Window start in nanoseconds after the stage start, -1 when it never started. */
  public long windowStartOffsetNanos() {
    return windowStartOffsetNanos;
  }

  /** Window end in nanoseconds after the stage start, -1 when it never started. */
  public long windowEndOffsetNanos() {
    return windowEndOffsetNanos;
  }

  public long outputTokens(int second) {
    return outputTokens[second];
  }

  public long completed(int second) {
    return completed[second];
  }

  public long failed(int second) {
    return failed[second];
  }

  public double meanInFlight(int second) {
    return meanInFlight[second];
  }

  /** Requests whose first token arrived in {@code second}. */
  public long firstTokens(int second) {
    return firstTokens[second];
  }

  /** Sum of the TTFT of the requests whose first token arrived in {@code second}, nanoseconds. */
  public long ttftSumNanos(int second) {
    return ttftSumNanos[second];
  }

  /** Mean TTFT of requests whose first token arrived in {@code second}; NaN when none did. */
  public double meanTtftNanos(int second) {
    return firstTokens[second] == 0 ? Double.NaN : (double) ttftSumNanos[second] / firstTokens[second];
  }

  /** True when second {@code s} lies wholly inside the stage (only the last one may not). */
  public boolean isWholeSecond(int second) {
    return (second + 1) * INTERVAL_NANOS <= stageLengthNanos;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TimeSeries t
        && stageLengthNanos == t.stageLengthNanos
        && windowStartOffsetNanos == t.windowStartOffsetNanos
        && windowEndOffsetNanos == t.windowEndOffsetNanos
        && Arrays.equals(outputTokens, t.outputTokens)
        && Arrays.equals(completed, t.completed)
        && Arrays.equals(failed, t.failed)
        && Arrays.equals(meanInFlight, t.meanInFlight)
        && Arrays.equals(firstTokens, t.firstTokens)
        && Arrays.equals(ttftSumNanos, t.ttftSumNanos);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(outputTokens) * 31 + Long.hashCode(stageLengthNanos);
  }

  @Override
  public String toString() {
    return "TimeSeries[seconds=" + seconds() + ", outputTokens=" + Arrays.toString(outputTokens) + "]";
  }
}
