package dev.tokenmeter.core.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whether a stage's measurement window ran in steady state: detected from the per-second series,
 * never assumed.
 *
 * <p>Method. Take the window's seconds: whole seconds of the stage whose midpoint lies in the
 * window (a second straddling a window edge still shows the real rate of that second, since the
 * series covers every phase). At least {@value #MIN_SECONDS} are needed. Split them into thirds
 * (third {@code j} holds seconds {@code [j·N/3, (j+1)·N/3)}, integer division) and require:
 *
 * <ol>
 *   <li><b>throughput</b>: each third's output tokens/s is within ±{@value #THROUGHPUT_TOLERANCE}
 *       (relative) of the window's mean. A ramp (server still warming, queue still filling) or a
 *       stall (tokens stop) moves at least one third outside it;
 *   <li><b>TTFT</b>: each third's mean TTFT (requests whose first token arrived in it) is within
 *       ±{@value #TTFT_TOLERANCE} of the window's mean TTFT, or within {@value #TTFT_TOLERANCE_MS}
 *       ms of it, whichever is wider: a growing queue shows as a rising TTFT before throughput
 *       moves. The absolute floor keeps millisecond-scale jitter on a fast server from failing the
 *       test. Thirds with no first token are skipped; with none in the whole window the test is
 *       skipped and the reason says so.
 * </ol>
 *
 * <p>Tolerances are relative to the window mean, so the test is scale-free; ±10% is the run-to-run
 * spread of throughput on a steady vLLM server at fixed concurrency, TTFT is noisier (queueing),
 * hence ±25%.
 *
 * @param reached true when every test passed
 * @param failedCheck the first test that failed, {@link Check#NONE} when reached
 * @param reason a human-readable sentence with the numbers behind the verdict
 * @param seconds number of window seconds examined
 * @param thirdOutputTokensPerSecond output tokens/s of each third (empty when too short)
 * @param thirdMeanTtftMillis mean TTFT of each third in ms, NaN for a third with no first token
 */
public record SteadyState(
    boolean reached,
    Check failedCheck,
    String reason,
    int seconds,
    List<Double> thirdOutputTokensPerSecond,
    List<Double> thirdMeanTtftMillis) {

  /** Fewest whole seconds the test needs: one per third. */
  public static final int MIN_SECONDS = 3;

  /** Largest relative deviation of a third's output tokens/s from the window mean. */
  public static final double THROUGHPUT_TOLERANCE = 0.10;

  /** Largest relative deviation of a third's mean TTFT from the window mean. */
  public static final double TTFT_TOLERANCE = 0.25;

  /** Absolute floor of the TTFT tolerance, in milliseconds. */
  public static final double TTFT_TOLERANCE_MS = 5.0;

  public SteadyState {
    thirdOutputTokensPerSecond = List.copyOf(thirdOutputTokensPerSecond);
    thirdMeanTtftMillis = List.copyOf(thirdMeanTtftMillis);
  }

  /** Which test decided the verdict. */
  public enum Check {
    NONE,
    /** Fewer than {@link #MIN_SECONDS} window seconds (or no window). */
    TOO_SHORT,
    /** No output token arrived in the window. */
    NO_OUTPUT,
    THROUGHPUT,
    TTFT;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Runs the tests over the window of {@code series}. */
  public static SteadyState detect(TimeSeries series) {
    if (series.windowStartOffsetNanos() < 0) {
      return tooShort(0, "the measurement window never started");
    }
    long end =
        series.windowEndOffsetNanos() >= 0
            ? series.windowEndOffsetNanos()
            : series.stageLengthNanos();
    List<Integer> secs = windowSeconds(series, series.windowStartOffsetNanos(), end);
    int n = secs.size();
    if (n < MIN_SECONDS) {
      return tooShort(n, "only " + n + " whole seconds in the window, " + MIN_SECONDS + " needed");
    }
    double[] tps = new double[3];
    double[] ttftMs = new double[3];
    long totalTokens = 0;
    long totalFirst = 0;
    long totalTtftNanos = 0;
    for (int j = 0; j < 3; j++) {
      int from = j * n / 3;
      int to = (j + 1) * n / 3;
      long tokens = 0;
      long first = 0;
      long ttftSum = 0;
      for (int i = from; i < to; i++) {
        int s = secs.get(i);
        tokens += series.outputTokens(s);
        first += series.firstTokens(s);
        ttftSum += series.ttftSumNanos(s);
      }
      tps[j] = (double) tokens / (to - from);
      ttftMs[j] = first == 0 ? Double.NaN : ttftSum / 1e6 / first;
      totalTokens += tokens;
      totalFirst += first;
      totalTtftNanos += ttftSum;
    }
    return judge(n, tps, ttftMs, (double) totalTokens / n, totalFirst, totalTtftNanos);
  }

  private static SteadyState judge(
      int n, double[] tps, double[] ttftMs, double meanTps, long firsts, long ttftSumNanos) {
    List<Double> tpsList = List.of(tps[0], tps[1], tps[2]);
    List<Double> ttftList = List.of(ttftMs[0], ttftMs[1], ttftMs[2]);
    if (meanTps == 0) {
      return new SteadyState(
          false, Check.NO_OUTPUT, "no output token arrived in the window", n, tpsList, ttftList);
    }
    int worst = worst(tps, meanTps);
    double dev = (tps[worst] - meanTps) / meanTps;
    if (Math.abs(dev) > THROUGHPUT_TOLERANCE) {
      String why =
          fmt(
              "output tokens/s of third %d is %.1f, %.0f%% %s the window mean %.1f (limit ±%.0f%%)",
              worst + 1,
              tps[worst],
              Math.abs(dev) * 100,
              dev < 0 ? "below" : "above",
              meanTps,
              THROUGHPUT_TOLERANCE * 100);
      return new SteadyState(false, Check.THROUGHPUT, why, n, tpsList, ttftList);
    }
    String tpsPart =
        fmt(
            "output tokens/s per third %.1f, %.1f, %.1f within ±%.0f%% of %.1f",
            tps[0], tps[1], tps[2], THROUGHPUT_TOLERANCE * 100, meanTps);
    if (firsts == 0) {
      return new SteadyState(
          true,
          Check.NONE,
          tpsPart + "; no first token in the window, TTFT test skipped",
          n,
          tpsList,
          ttftList);
    }
    double meanTtft = ttftSumNanos / 1e6 / firsts;
    double allowed = Math.max(TTFT_TOLERANCE * meanTtft, TTFT_TOLERANCE_MS);
    for (int j = 0; j < 3; j++) {
      if (!Double.isNaN(ttftMs[j]) && Math.abs(ttftMs[j] - meanTtft) > allowed) {
        String why =
            fmt(
                "mean TTFT of third %d is %.1f ms, the window mean %.1f ms (limit ±%.1f ms)",
                j + 1, ttftMs[j], meanTtft, allowed);
        return new SteadyState(false, Check.TTFT, why, n, tpsList, ttftList);
      }
    }
    String why =
        tpsPart
            + fmt(
                "; mean TTFT per third %.1f, %.1f, %.1f ms within ±%.1f ms of %.1f ms",
                ttftMs[0], ttftMs[1], ttftMs[2], allowed, meanTtft);
    return new SteadyState(true, Check.NONE, why, n, tpsList, ttftList);
  }

  private static int worst(double[] values, double mean) {
    int w = 0;
    for (int j = 1; j < values.length; j++) {
      if (Math.abs(values[j] - mean) > Math.abs(values[w] - mean)) {
        w = j;
      }
    }
    return w;
  }

  private static List<Integer> windowSeconds(TimeSeries s, long startNanos, long endNanos) {
    List<Integer> secs = new ArrayList<>();
    long half = TimeSeries.INTERVAL_NANOS / 2;
    for (int i = 0; i < s.seconds(); i++) {
      long mid = i * TimeSeries.INTERVAL_NANOS + half;
      if (s.isWholeSecond(i) && mid >= startNanos && mid < endNanos) {
        secs.add(i);
      }
    }
    return secs;
  }

  private static SteadyState tooShort(int n, String why) {
    return new SteadyState(false, Check.TOO_SHORT, why, n, List.of(), List.of());
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
