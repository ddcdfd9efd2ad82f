package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.scrape.Reading;
import dev.tokenmeter.scrape.ServerKind;
import dev.tokenmeter.scrape.ServerStage;
import java.io.IOException;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Writes and reads {@code stages[].server} of summary.json (schema 1.4): the server's own metrics
 * over the stage, {@link ServerStage}. Field names are the common names of docs/METRICS.md,
 * "Server metrics", in lower case. Stateless.
 */
public final class ServerStageJson {
  private ServerStageJson() {}

  /** {@code "kv_cache_usage"}: a common name as summary.json spells it. */
  public static String wireName(Enum<?> name) {
    return name.name().toLowerCase(Locale.ROOT);
  }

  /** Writes {@code s} as the field {@code server}. */
  static void write(JsonGenerator g, ServerStage s) throws IOException {
    g.writeObjectFieldStart("server");
    g.writeStringField("server", s.server().wireName());
    g.writeNumberField("window_scrapes", s.windowScrapes());
    g.writeObjectFieldStart("gauges");
    for (Map.Entry<Reading.Value, ServerStage.Gauge> e : s.gauges().entrySet()) {
      g.writeObjectFieldStart(wireName(e.getKey()));
      StageJsonWriter.number(g, "mean", e.getValue().mean());
      StageJsonWriter.number(g, "max", e.getValue().max());
      g.writeEndObject();
    }
    g.writeEndObject();
    g.writeObjectFieldStart("totals");
    for (Map.Entry<Reading.Value, Double> e : s.deltas().entrySet()) {
      StageJsonWriter.number(g, wireName(e.getKey()), e.getValue());
    }
    g.writeEndObject();
    StageJsonWriter.number(g, "prefix_cache_hit_rate", s.prefixCacheHitRate());
    g.writeObjectFieldStart("latency_ms");
    for (Map.Entry<Reading.Histogram, ServerStage.Latency> e : s.latencies().entrySet()) {
      ServerStage.Latency l = e.getValue();
      g.writeObjectFieldStart(wireName(e.getKey()));
      StageJsonWriter.number(g, "count", l.count());
      StageJsonWriter.number(g, "mean", l.meanMs());
      StageJsonWriter.number(g, "p50", l.p50Ms());
      StageJsonWriter.number(g, "p90", l.p90Ms());
      StageJsonWriter.number(g, "p99", l.p99Ms());
      StageJsonWriter.number(g, "p50_bucket_low", l.p50LowMs());
      StageJsonWriter.number(g, "p50_bucket_high", l.p50HighMs());
      g.writeEndObject();
    }
    g.writeEndObject();
    decomposition(g, s.decomposition());
    series(g, s.series());
    g.writeEndObject();
  }

  private static void decomposition(JsonGenerator g, ServerStage.Decomposition d) throws IOException {
    if (d == null) {
      g.writeNullField("ttft_decomposition");
      return;
    }
    g.writeObjectFieldStart("ttft_decomposition");
    StageJsonWriter.number(g, "client_ttft_p50_ms", d.clientTtftP50Ms());
    StageJsonWriter.number(g, "queue_ms", d.queueMs());
    g.writeStringField("queue_source", d.queueSource());
    StageJsonWriter.number(g, "prefill_ms", d.prefillMs());
    StageJsonWriter.number(g, "rest_ms", d.restMs());
    g.writeArrayFieldStart("means");
    for (String m : d.means()) {
      g.writeString(m);
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  private static void series(JsonGenerator g, ServerStage.Series s) throws IOException {
    g.writeObjectFieldStart("time_series");
    array(g, "offset_s", s.offsetSeconds());
    array(g, "running", s.running());
    array(g, "waiting", s.waiting());
    array(g, "kv_cache_usage", s.kvCacheUsage());
    g.writeObjectFieldStart("raw");
    for (Map.Entry<String, double[]> e : s.raw().entrySet()) {
      array(g, e.getKey(), e.getValue());
    }
    g.writeEndObject();
    g.writeEndObject();
  }

  private static void array(JsonGenerator g, String name, double[] values) throws IOException {
    g.writeArrayFieldStart(name);
    for (double v : values) {
      StageJsonWriter.number(g, v);
    }
    g.writeEndArray();
  }

  /** {@code stages[].server} read back; null when absent (no --server-metrics, or an older file). */
  public static ServerStage read(JsonNode s) {
    if (s == null || !s.isObject()) {
      return null;
    }
    Map<Reading.Value, ServerStage.Gauge> gauges = new EnumMap<>(Reading.Value.class);
    Map<Reading.Value, Double> totals = new EnumMap<>(Reading.Value.class);
    for (Reading.Value v : Reading.Value.values()) {
      JsonNode gauge = s.path("gauges").path(wireName(v));
      if (gauge.isObject()) {
        gauges.put(v, new ServerStage.Gauge(num(gauge.path("mean")), num(gauge.path("max"))));
      }
      if (s.path("totals").has(wireName(v))) {
        totals.put(v, num(s.path("totals").path(wireName(v))));
      }
    }
    Map<Reading.Histogram, ServerStage.Latency> latencies = new EnumMap<>(Reading.Histogram.class);
    for (Reading.Histogram h : Reading.Histogram.values()) {
      JsonNode l = s.path("latency_ms").path(wireName(h));
      if (l.isObject()) {
        latencies.put(h, new ServerStage.Latency(num(l.path("count")), num(l.path("mean")), num(l.path("p50")),
            num(l.path("p90")), num(l.path("p99")), num(l.path("p50_bucket_low")),
            num(l.path("p50_bucket_high"))));
      }
    }
    JsonNode d = s.path("ttft_decomposition");
    ServerStage.Decomposition decomposition = d.isObject()
        ? new ServerStage.Decomposition(num(d.path("client_ttft_p50_ms")), num(d.path("queue_ms")),
            d.path("queue_source").asText(""), num(d.path("prefill_ms")), num(d.path("rest_ms")), strings(d.path("means")))
        : null;
    JsonNode ts = s.path("time_series");
    Map<String, double[]> raw = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : ts.path("raw").properties()) {
      raw.put(e.getKey(), doubles(e.getValue()));
    }
    return new ServerStage(ServerKind.ofWireName(s.path("server").asText("")), s.path("window_scrapes").asInt(0),
        gauges, totals, num(s.path("prefix_cache_hit_rate")), latencies, decomposition,
        new ServerStage.Series(doubles(ts.path("offset_s")), doubles(ts.path("running")), doubles(ts.path("waiting")),
            doubles(ts.path("kv_cache_usage")), raw));
  }

  private static double num(JsonNode v) {
    return StageDetailReader.number(v);
  }

  private static java.util.List<String> strings(JsonNode a) {
    java.util.List<String> out = new java.util.ArrayList<>();
    a.forEach(v -> out.add(v.asText()));
    return out;
  }

  private static double[] doubles(JsonNode a) {
    double[] out = new double[a.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = num(a.get(i));
    }
    return out;
  }
}
