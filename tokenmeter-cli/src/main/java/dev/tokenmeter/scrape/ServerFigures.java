package dev.tokenmeter.scrape;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Computes a stage's {@link ServerStage} from the scrapes of a run: a pure function, no clock.
 *
 * <p>Over the measurement window {@code [from, to]}: gauges are averaged over the scrapes that fell
 * in it; running totals and histograms are the difference between the last scrape at or before
 * {@code from} and the first at or after {@code to} (so a scrape every second makes the span up to
 * a second longer at each end, never shorter). A total that went down (a restarted server) counts
 * from zero.
 */
public final class ServerFigures {
  private static final double MS_PER_S = 1e3;

  private ServerFigures() {}

  /**
   * The stage's server figures.
   *
   * @param server the server the readings were read as
   * @param readings every scrape of the run so far, in time order
   * @param stage the stage's span and window (ticker times)
   * @param clientTtftP50Ms the client's TTFT p50 over the window; NaN when it has none
   */
  public static ServerStage of(ServerKind server, List<Reading> readings, Span stage, double clientTtftP50Ms) {
    List<Reading> inWindow = between(readings, stage.windowFromNanos(), stage.windowToNanos());
    Reading before = null;
    Reading after = null;
    for (Reading r : readings) {
      if (r.atNanos() <= stage.windowFromNanos()) {
        before = r;
      }
      if (after == null && r.atNanos() >= stage.windowToNanos()) {
        after = r;
      }
    }
    Map<Reading.Value, ServerStage.Gauge> gauges = gauges(inWindow);
    Map<Reading.Value, Double> deltas = new EnumMap<>(Reading.Value.class);
    Map<Reading.Histogram, ServerStage.Latency> latencies = new EnumMap<>(Reading.Histogram.class);
    if (before != null && after != null && before != after) {
      deltas = deltas(before, after);
      for (Map.Entry<Reading.Histogram, Buckets> e : after.histograms().entrySet()) {
        latencies.put(e.getKey(), latency(e.getValue().minus(before.histograms().get(e.getKey()))));
      }
      double queued = deltas.getOrDefault(Reading.Value.QUEUE_MICROS_TOTAL, Double.NaN);
      double finished = deltas.getOrDefault(Reading.Value.REQUESTS_FINISHED, Double.NaN);
      if (!latencies.containsKey(Reading.Histogram.QUEUE_TIME) && finished > 0 && !Double.isNaN(queued)) {
        latencies.put(Reading.Histogram.QUEUE_TIME,
            new ServerStage.Latency(finished, queued / finished / 1e3, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN));
      }
    }
    return new ServerStage(server, inWindow.size(), gauges, deltas, hitRate(deltas, gauges), latencies,
        decomposition(server, latencies, clientTtftP50Ms),
        ServerStage.Series.of(between(readings, stage.startNanos(), stage.endNanos()), stage.startNanos()));
  }

  /**
   * A stage's times (ticker nanos): its start and end, and its measurement window.
   *
   * @param startNanos stage start
   * @param windowFromNanos window start
   * @param windowToNanos window end
   * @param endNanos stage end (cool-down included)
   */
  public record Span(long startNanos, long windowFromNanos, long windowToNanos, long endNanos) {}

  private static List<Reading> between(List<Reading> readings, long fromNanos, long toNanos) {
    List<Reading> out = new ArrayList<>();
    for (Reading r : readings) {
      if (r.atNanos() >= fromNanos && r.atNanos() <= toNanos) {
        out.add(r);
      }
    }
    return out;
  }

  private static Map<Reading.Value, ServerStage.Gauge> gauges(List<Reading> inWindow) {
    Map<Reading.Value, ServerStage.Gauge> gauges = new EnumMap<>(Reading.Value.class);
    for (Reading.Value v : Reading.Value.values()) {
      if (!v.gauge()) {
        continue;
      }
      double sum = 0;
      double max = Double.NEGATIVE_INFINITY;
      int n = 0;
      for (Reading r : inWindow) {
        double x = r.value(v);
        if (!Double.isNaN(x)) {
          sum += x;
          max = Math.max(max, x);
          n++;
        }
      }
      if (n > 0) {
        gauges.put(v, new ServerStage.Gauge(sum / n, max));
      }
    }
    return gauges;
  }

  private static Map<Reading.Value, Double> deltas(Reading before, Reading after) {
    Map<Reading.Value, Double> deltas = new EnumMap<>(Reading.Value.class);
    for (Map.Entry<Reading.Value, Double> e : after.values().entrySet()) {
      double earlier = before.value(e.getKey());
      if (!e.getKey().gauge() && !Double.isNaN(earlier)) {
        double d = e.getValue() - earlier;
        deltas.put(e.getKey(), d < 0 ? e.getValue() : d);
      }
    }
    return deltas;
  }

  private static double hitRate(Map<Reading.Value, Double> deltas, Map<Reading.Value, ServerStage.Gauge> gauges) {
    double queries = deltas.getOrDefault(Reading.Value.PREFIX_CACHE_QUERIES, Double.NaN);
    if (queries > 0) {
      return deltas.getOrDefault(Reading.Value.PREFIX_CACHE_HITS, Double.NaN) / queries;
    }
    ServerStage.Gauge g = gauges.get(Reading.Value.PREFIX_CACHE_HIT_RATE);
    return g == null ? Double.NaN : g.mean();
  }

  static ServerStage.Latency latency(Buckets b) {
    double[] median = b.bucketOf(0.5);
    return new ServerStage.Latency(b.count(), b.mean() * MS_PER_S, b.quantile(0.5) * MS_PER_S,
        b.quantile(0.9) * MS_PER_S, b.quantile(0.99) * MS_PER_S, median[0] * MS_PER_S, median[1] * MS_PER_S);
  }

  private static ServerStage.Decomposition decomposition(ServerKind server,
      Map<Reading.Histogram, ServerStage.Latency> latencies, double clientTtftP50Ms) {
    ServerStage.Latency queue = latencies.get(Reading.Histogram.QUEUE_TIME);
    if (queue == null || !(queue.count() > 0) || Double.isNaN(clientTtftP50Ms)) {
      return null;
    }
    List<String> means = new ArrayList<>();
    double queueMs = part(queue, "queue", means);
    ServerStage.Latency prefill = latencies.get(Reading.Histogram.PREFILL_TIME);
    double prefillMs = prefill == null || !(prefill.count() > 0) ? Double.NaN : part(prefill, "prefill", means);
    double rest = clientTtftP50Ms - queueMs - (Double.isNaN(prefillMs) ? 0 : prefillMs);
    boolean median = !Double.isNaN(queue.p50Ms());
    return new ServerStage.Decomposition(clientTtftP50Ms, queueMs,
        server.displayName() + (median ? " queue time" : " mean queue time"), prefillMs, rest, means);
  }

  /**
   * A part's interpolated median; its exact mean where that lies in the median's bucket (finer than
   * interpolation, which spreads the bucket's observations evenly: all-zero queue times would read
   * as half the lowest bucket) or where there is only a total. {@code name} joins {@code means} when
   * the mean of a histogram stands in.
   */
  private static double part(ServerStage.Latency l, String name, List<String> means) {
    if (Double.isNaN(l.p50Ms())) {
      return l.meanMs();
    }
    if (l.meanInMedianBucket()) {
      means.add(name);
      return l.meanMs();
    }
    return l.p50Ms();
  }
}
