package dev.tokenmeter.scrape;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the server's own metrics said during one stage (summary.json {@code stages[].server}):
 * queue depth, batch size and KV usage over the measurement window, what its counters counted and
 * its histograms observed in it, the client's TTFT p50 split into server queueing, prefill and the
 * rest, and the readings over the whole stage. Built by {@link ServerFigures}. Immutable.
 *
 * @param server the server the names were read as
 * @param windowScrapes scrapes that fell inside the measurement window
 * @param gauges per instantaneous value the server reports: mean and max over the window's scrapes
 * @param deltas per running total the server reports: its increase over the window
 * @param prefixCacheHitRate prefix-cache hits / queries over the window (or the server's own hit
 *     rate gauge's mean), fraction; NaN when the server reports neither
 * @param latencies per histogram the server reports: the observations made over the window
 * @param decomposition the client's TTFT p50 in parts; null without the server's queue time
 * @param series the scrapes over the whole stage
 */
public record ServerStage(
    ServerKind server,
    int windowScrapes,
    Map<Reading.Value, Gauge> gauges,
    Map<Reading.Value, Double> deltas,
    double prefixCacheHitRate,
    Map<Reading.Histogram, Latency> latencies,
    Decomposition decomposition,
    Series series) {

  public ServerStage {
    gauges = frozen(gauges, Reading.Value.class);
    deltas = frozen(deltas, Reading.Value.class);
    latencies = frozen(latencies, Reading.Histogram.class);
  }

  private static <K extends Enum<K>, V> Map<K, V> frozen(Map<K, V> m, Class<K> type) {
    EnumMap<K, V> copy = new EnumMap<>(type);
    copy.putAll(m);
    return Collections.unmodifiableMap(copy);
  }

  /** Mean and max of a gauge over the window's scrapes; NaN when none fell in it. */
  public record Gauge(double mean, double max) {}

  /**
   * A server histogram's observations over the window, in ms. Percentiles are interpolated
   * linearly within the bucket they fall in (the server's bucket bounds limit their precision).
   *
   * @param count observations
   * @param meanMs sum / count; NaN when the server sends no sum
   * @param p50Ms median; NaN when the server has only a running total
   * @param p90Ms 90th percentile
   * @param p99Ms 99th percentile
   * @param p50LowMs lower bound of the bucket the median lies in; NaN where unknown
   * @param p50HighMs upper bound of that bucket
   */
  public record Latency(double count, double meanMs, double p50Ms, double p90Ms, double p99Ms, double p50LowMs,
      double p50HighMs) {
    /**
     * Whether the exact mean lies in the median's bucket: it then places the middle of the
     * observations more finely than interpolating within the bucket, which assumes them spread
     * evenly over it (a queue time of 1.03 s in vLLM's 1 to 1.5 s bucket reads 1.25 s).
     */
    public boolean meanInMedianBucket() {
      return meanMs >= p50LowMs && meanMs <= p50HighMs;
    }
  }

  /**
   * The client's TTFT p50 split: {@code queueMs} waiting in the server, {@code prefillMs} prefill,
   * {@code restMs} the remainder (network, HTTP and client, and whatever else the server does before
   * its queue). From medians: the median of a sum is not the sum of medians, so this is an
   * approximation (docs/METRICS.md, "Server metrics"). A part whose exact mean lies in the bucket of
   * its median is that mean, finer than interpolating within the bucket.
   *
   * @param clientTtftP50Ms the client's TTFT p50
   * @param queueMs the server's queue-time p50 (or mean: see {@code means})
   * @param queueSource how the queue time was read ({@code "vLLM queue time"})
   * @param prefillMs the server's prefill-time p50 (or mean); NaN when the server does not report it
   * @param restMs client p50 − queue − prefill (NaN prefill counts as 0); may be negative
   * @param means the parts given as their means ({@code "queue"}, {@code "prefill"}), in words order;
   *     empty when both are interpolated medians
   */
  public record Decomposition(double clientTtftP50Ms, double queueMs, String queueSource, double prefillMs,
      double restMs, java.util.List<String> means) {
    public Decomposition {
      means = java.util.List.copyOf(means);
    }
  }

  /**
   * The scrapes over the whole stage, aligned with the client's series by their time from the
   * stage start. NaN where a scrape lacks the value.
   *
   * @param offsetSeconds each scrape's time from the stage start
   * @param running requests running
   * @param waiting requests waiting
   * @param kvCacheUsage KV-cache usage, fraction
   * @param raw an unknown server's series by {@code name{labels}}, one value per scrape; empty for
   *     a known server
   */
  public record Series(double[] offsetSeconds, double[] running, double[] waiting, double[] kvCacheUsage,
      Map<String, double[]> raw) {
    public Series {
      raw = Collections.unmodifiableMap(new LinkedHashMap<>(raw));
    }

    /** No scrapes. */
    public static Series empty() {
      return new Series(new double[0], new double[0], new double[0], new double[0], Map.of());
    }

    /** The series of {@code readings}, {@code stageStartNanos} being offset 0. */
    static Series of(List<Reading> readings, long stageStartNanos) {
      int n = readings.size();
      double[] t = new double[n];
      double[] running = new double[n];
      double[] waiting = new double[n];
      double[] kv = new double[n];
      Map<String, double[]> raw = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        Reading r = readings.get(i);
        t[i] = (r.atNanos() - stageStartNanos) / 1e9;
        running[i] = r.value(Reading.Value.RUNNING);
        waiting[i] = r.value(Reading.Value.WAITING);
        kv[i] = r.value(Reading.Value.KV_CACHE_USAGE);
        for (Map.Entry<String, Double> e : r.raw().entrySet()) {
          if (raw.containsKey(e.getKey()) || raw.size() < Reading.MAX_RAW) {
            raw.computeIfAbsent(e.getKey(), k -> nans(n))[i] = e.getValue();
          }
        }
      }
      return new Series(t, running, waiting, kv, raw);
    }

    private static double[] nans(int n) {
      double[] a = new double[n];
      java.util.Arrays.fill(a, Double.NaN);
      return a;
    }
  }
}
