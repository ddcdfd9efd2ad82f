package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Merges one stage of several side-by-side parts (elements of {@code stages[]}), field by field;
 * the rules are docs/RESULTS.md's "Merged folders". Distributions are recomputed from the summed
 * histograms, so the merged p99 is the p99 of every part's requests together (within the
 * histograms' 0.1%), never an average of percentiles. Stateless.
 */
final class StageMerger {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String[] THROUGHPUTS = {
    "output_tokens_per_s", "input_tokens_per_s", "requests_per_s", "goodput_requests_per_s"
  };

  private StageMerger() {}

  static ObjectNode merge(List<JsonNode> parts, List<String> warnings) {
    JsonNode first = parts.get(0);
    ObjectNode out = MAPPER.createObjectNode();
    out.set("index", first.get("index").deepCopy());
    ObjectNode load = first.get("load").deepCopy();
    out.put("label", load(load, parts, first.get("label").asText()));
    out.set("load", load);
    ObjectNode stop = first.get("stop").deepCopy();
    if ("requests".equals(stop.path("kind").asText())) {
      stop.put("requests", sum(parts, "/stop/requests"));
    }
    out.set("stop", stop);
    for (String f : new String[] {"warmup_s", "cooldown_s", "seed"}) {
      out.set(f, first.get(f).deepCopy());
    }
    double cap = sumOrNull(parts, "/max_requests"); // the generators' caps together; null when one had none
    if (Double.isNaN(cap)) {
      out.putNull("max_requests");
    } else {
      out.put("max_requests", (long) cap);
    }
    out.put("stage_length_s", max(parts, "/stage_length_s"));
    window(out.putObject("window"), parts);
    ObjectNode requests = out.putObject("requests");
    requests.put("completed", sum(parts, "/requests/completed"));
    requests.put("failed", sum(parts, "/requests/failed"));
    requests.put("tpot_undefined", sum(parts, "/requests/tpot_undefined"));
    ObjectNode byPhase = requests.putObject("by_phase");
    for (String phase : new String[] {"warmup", "measured", "cooldown"}) {
      byPhase.putObject(phase)
          .put("completed", sum(parts, "/requests/by_phase/" + phase + "/completed"))
          .put("failed", sum(parts, "/requests/by_phase/" + phase + "/failed"));
    }
    out.set("errors", sumFields(parts, "errors"));
    ObjectNode throughput = out.putObject("throughput");
    for (String f : THROUGHPUTS) {
      number(throughput, f, sumOrNull(parts, "/throughput/" + f));
    }
    throughput.put("window_output_tokens", sum(parts, "/throughput/window_output_tokens"));
    throughput.put("window_input_tokens", sum(parts, "/throughput/window_input_tokens"));
    number(out, "achieved_concurrency", sumOrNull(parts, "/achieved_concurrency"));
    out.put("headline_latency_from", first.path("headline_latency_from").asText("sent"));
    Map<Metric, Histogram> histograms = histograms(parts, "histograms");
    Map<Metric, Histogram> failedHistograms = histograms(parts, "failed_histograms");
    out.set("metrics", distributions(first.get("metrics"), histograms, false));
    out.set("failed_metrics", distributions(null, failedHistograms, true));
    tokens(out.putObject("tokens"), parts);
    if (parts.stream().allMatch(p -> p.has("finishes"))) { // absent in folders written before schema 1.x added it
      ObjectNode f = out.putObject("finishes");
      f.set("by_reason", sumFields(parts.stream().map(p -> p.get("finishes")).toList(), "by_reason"));
      f.put("with_max_tokens", sum(parts, "/finishes/with_max_tokens"));
      f.put("reached_max_tokens", sum(parts, "/finishes/reached_max_tokens"));
    }
    steadyState(out.putObject("steady_state"), parts);
    clientHealth(out.putObject("client_health"), parts, histograms);
    out.set("time_series", TimeSeriesMerger.merge(parts));
    out.set("histograms", encoded(histograms));
    out.set("failed_histograms", encoded(failedHistograms));
    conversations(out, parts, warnings);
    return out;
  }

  /**
   * The parts' {@code sessions} and {@code completion}, merged from their raw histograms and
   * written by the writers a measured stage uses; left out, with a warning, when a part has them
   * without histograms (a folder written before schema 1.11) or not at all.
   */
  private static void conversations(ObjectNode out, List<JsonNode> parts, List<String> warnings) {
    String label = out.get("label").asText();
    if (parts.stream().anyMatch(p -> p.has("sessions"))) {
      List<dev.tokenmeter.core.analysis.Sessions> s = new java.util.ArrayList<>();
      for (JsonNode p : parts) {
        dev.tokenmeter.core.analysis.Sessions one = p.has("sessions") ? SessionsJsonReader.sessions(p.get("sessions")) : null;
        if (one == null) {
          warnings.add("stage " + label + ": a part's sessions have no raw histograms (written before schema 1.11):"
              + " the merged stage has no sessions");
          s = null;
          break;
        }
        s.add(one);
      }
      if (s != null) {
        dev.tokenmeter.core.analysis.Sessions merged = dev.tokenmeter.core.analysis.Sessions.merge(s);
        out.set("sessions", written(g -> SessionsJsonWriter.write(g, merged)).get("sessions"));
      }
    }
    if (parts.stream().anyMatch(p -> p.has("completion"))) {
      List<dev.tokenmeter.core.analysis.Completions> c = new java.util.ArrayList<>();
      for (JsonNode p : parts) {
        dev.tokenmeter.core.analysis.Completions one =
            p.has("completion") ? SessionsJsonReader.completion(p.get("completion")) : null;
        if (one == null) {
          warnings.add("stage " + label + ": a part's completion figures have no raw histograms (written before"
              + " schema 1.11): the merged stage has none");
          c = null;
          break;
        }
        c.add(one);
      }
      if (c != null) {
        dev.tokenmeter.core.analysis.Completions merged = dev.tokenmeter.core.analysis.Completions.merge(c);
        out.set("completion", written(g -> CompletionJsonWriter.write(g, merged)).get("completion"));
      }
    }
  }

  /** Sums the load (concurrency, rate, cap) into {@code load}; returns the label of the sum. */
  private static String load(ObjectNode load, List<JsonNode> parts, String label) {
    if ("closed".equals(load.path("model").asText())) {
      long c = sum(parts, "/load/concurrency");
      load.put("concurrency", c);
      return "c=" + c;
    }
    double rate = sumOrNull(parts, "/load/rate_per_s");
    load.put("rate_per_s", rate);
    if (load.get("max_concurrency").isNumber()) {
      load.put("max_concurrency", sum(parts, "/load/max_concurrency"));
    }
    String r = rate == Math.rint(rate) ? Long.toString((long) rate) : Double.toString(rate);
    return label.replaceFirst("^rate=[^/]*/s", "rate=" + r + "/s"); // "rate=4/s poisson"
  }

  /** The span of the parts' windows (offsets are each part's own); complete when all are. */
  private static void window(ObjectNode w, List<JsonNode> parts) {
    double start = Double.POSITIVE_INFINITY;
    double end = Double.NEGATIVE_INFINITY;
    boolean complete = true;
    for (JsonNode p : parts) {
      JsonNode pw = p.get("window");
      complete &= pw.get("complete").asBoolean();
      if (pw.get("start_s").isNumber()) {
        start = Math.min(start, pw.get("start_s").asDouble());
        end = Math.max(end, pw.get("end_s").asDouble());
      }
    }
    boolean started = start != Double.POSITIVE_INFINITY;
    number(w, "start_s", started ? start : Double.NaN);
    number(w, "end_s", started ? end : Double.NaN);
    w.put("length_s", started ? end - start : 0);
    w.put("complete", complete);
  }

  private static Map<Metric, Histogram> histograms(List<JsonNode> parts, String field) {
    Map<Metric, Histogram> out = new LinkedHashMap<>();
    for (JsonNode p : parts) {
      for (Map.Entry<String, JsonNode> e : p.get(field).properties()) {
        Histogram h = HistogramCodec.decode(e.getValue().get("data").asText());
        out.computeIfAbsent(Metric.ofWireName(e.getKey()), m -> {
          Histogram sum = new Histogram(h.getNumberOfSignificantValueDigits());
          sum.setAutoResize(true);
          return sum;
        }).add(h);
      }
    }
    return out;
  }

  /**
   * Distributions of the summed histograms under the keys of {@code template} (every metric of
   * the first part), or of every non-empty histogram when {@code onlyPresent}.
   */
  private static ObjectNode distributions(
      JsonNode template, Map<Metric, Histogram> histograms, boolean onlyPresent) {
    ObjectNode out = MAPPER.createObjectNode();
    for (Metric m : Metric.values()) {
      Histogram h = histograms.get(m);
      boolean wanted = onlyPresent ? h != null && h.getTotalCount() > 0 : template.has(m.reportKey());
      if (wanted) {
        out.set(m.reportKey(), distribution(h == null ? Distribution.EMPTY : Distribution.of(h, m)));
      }
    }
    return out;
  }

  /** {@code d} as {@link StageJsonWriter} writes it for a measured stage. */
  static ObjectNode distribution(Distribution d) {
    return (ObjectNode) written(g -> StageJsonWriter.distribution(g, "d", d)).get("d");
  }

  /** The summed histograms as {@link StageJsonWriter} writes a measured stage's. */
  private static ObjectNode encoded(Map<Metric, Histogram> histograms) {
    return (ObjectNode) written(g -> StageJsonWriter.histograms(g, "h", histograms)).get("h");
  }

  private interface Fields {
    void write(JsonGenerator g) throws IOException;
  }

  /**
   * The object that {@code fields} write, as a tree: the merger takes shared parts of a stage from
   * the writer itself, so a merged stage and a measured one cannot drift apart in format.
   */
  private static ObjectNode written(Fields fields) {
    try (TokenBuffer buffer = new TokenBuffer(MAPPER, false)) {
      buffer.writeStartObject();
      fields.write(buffer);
      buffer.writeEndObject();
      return MAPPER.readTree(buffer.asParser());
    } catch (IOException e) {
      throw new UncheckedIOException("writing into memory failed", e);
    }
  }

  private static void tokens(ObjectNode t, List<JsonNode> parts) {
    t.set("output_sources", sumFields(parts.stream().map(p -> p.get("tokens")).toList(), "output_sources"));
    t.put("usage_chunk_disagreements", sum(parts, "/tokens/usage_chunk_disagreements"));
    long count = sum(parts, "/tokens/prompt_overhead/count");
    ObjectNode o = t.putObject("prompt_overhead").put("count", count)
        .put("estimated_count", sum(parts, "/tokens/prompt_overhead/estimated_count"));
    number(o, "mean_tokens", weightedMean(parts, "/tokens/prompt_overhead/mean_tokens", "/tokens/prompt_overhead/count"));
    countOrNull(o, "min_tokens", count > 0, min(parts, "/tokens/prompt_overhead/min_tokens"));
    countOrNull(o, "max_tokens", count > 0, max(parts, "/tokens/prompt_overhead/max_tokens"));
    double meanDiff = weightedMean(parts, "/tokens/prompt_overhead/mean_tokens", "/tokens/prompt_overhead/count");
    double meanClient = weightedMean(parts, "/tokens/prompt_overhead/mean_client_tokens", "/tokens/prompt_overhead/count");
    number(o, "mean_client_tokens", meanClient);
    o.put("counts_differ", StageResult.PromptOverhead.differ(meanDiff, meanClient));
    String u = "/tokens/usage_vs_tokenizer/";
    long disagreements = sum(parts, u + "disagreements");
    ObjectNode v = t.putObject("usage_vs_tokenizer");
    JsonNode tokenizer = parts.get(0).at(u + "tokenizer");
    v.put("tokenizer", tokenizer.isTextual() ? tokenizer.asText() : null);
    v.put("compared", sum(parts, u + "compared")).put("disagreements", disagreements);
    number(v, "mean_diff_tokens", weightedMean(parts, u + "mean_diff_tokens", u + "compared"));
    number(v, "mean_abs_diff_tokens", weightedMean(parts, u + "mean_abs_diff_tokens", u + "disagreements"));
    countOrNull(v, "max_abs_diff_tokens", disagreements > 0, max(parts, u + "max_abs_diff_tokens"));
    // Each part's mean over its disagreeing requests with usage > 0, weighted by its disagreements:
    // exact unless some part disagreed on a request whose usage was 0.
    number(v, "mean_rel_diff", weightedMean(parts, u + "mean_rel_diff", u + "disagreements"));
    number(v, "max_rel_diff", max(parts, u + "max_rel_diff"));
    // A part's counted output tokens are words / words-per-token; a part with no words adds no
    // tokens here (its ratio is 0 or undefined, which carries no count).
    long words = sum(parts, "/tokens/output_words");
    double counted = 0;
    for (JsonNode p : parts) {
      double ratio = p.at("/tokens/words_per_output_token").asDouble(Double.NaN);
      long w = p.at("/tokens/output_words").asLong();
      if (w > 0 && ratio > 0) {
        counted += w / ratio;
      }
    }
    t.put("output_words", words);
    number(t, "words_per_output_token", counted > 0 ? words / counted : Double.NaN);
  }

  /** Mean of the parts' means at {@code path}, weighted by the counts at {@code weightPath}. */
  private static double weightedMean(List<JsonNode> parts, String path, String weightPath) {
    double weighted = 0;
    long n = 0;
    for (JsonNode p : parts) {
      long w = p.at(weightPath).asLong();
      if (w > 0 && p.at(path).isNumber()) {
        weighted += w * p.at(path).asDouble();
        n += w;
      }
    }
    return n == 0 ? Double.NaN : weighted / n;
  }

  private static void countOrNull(ObjectNode n, String field, boolean present, double value) {
    if (present && Double.isFinite(value)) {
      n.put(field, (long) value);
    } else {
      n.putNull(field);
    }
  }

  /** Steady when every part was; otherwise the first part that was not says why. */
  private static void steadyState(ObjectNode s, List<JsonNode> parts) {
    int unsteady = -1;
    for (int i = 0; i < parts.size() && unsteady < 0; i++) {
      unsteady = parts.get(i).at("/steady_state/reached").asBoolean() ? -1 : i;
    }
    JsonNode decider = parts.get(Math.max(0, unsteady)).get("steady_state");
    s.put("reached", unsteady < 0);
    s.set("failed_check", decider.get("failed_check").deepCopy());
    s.put("reason", unsteady < 0 ? "every part reached steady state"
        : "part " + unsteady + ": " + decider.get("reason").asText());
    s.put("seconds", (long) min(parts, "/steady_state/seconds"));
    s.set("third_output_tokens_per_s", elementwise(parts, "/steady_state/third_output_tokens_per_s", false));
    s.set("third_mean_ttft_ms", elementwise(parts, "/steady_state/third_mean_ttft_ms", true));
  }

  /**
   * Client health of the parts together: bottleneck when any part was, each part's reasons, lag
   * distributions of the summed histograms, CPU seconds and cores summed, fractions the worst.
   */
  private static void clientHealth(ObjectNode h, List<JsonNode> parts, Map<Metric, Histogram> hs) {
    h.put("bottleneck", parts.stream().anyMatch(p -> p.at("/client_health/bottleneck").asBoolean()));
    ArrayNode reasons = h.putArray("reasons");
    for (int i = 0; i < parts.size(); i++) {
      for (JsonNode r : parts.get(i).at("/client_health/reasons")) {
        reasons.add("part " + i + ": " + r.asText());
      }
    }
    for (Metric m : new Metric[] {Metric.SEND_LAG, Metric.LOOP_LAG}) {
      Histogram lag = hs.get(m);
      h.set(m.reportKey(), lag != null ? distribution(Distribution.of(lag, m))
          : parts.get(0).at("/client_health/" + m.reportKey()).deepCopy());
    }
    double cpu = sumOrNull(parts, "/client_health/cpu_seconds");
    number(h, "cpu_seconds", cpu);
    number(h, "cpu_fraction_of_one_core", sumOrNull(parts, "/client_health/cpu_fraction_of_one_core"));
    number(h, "cpu_fraction_of_all_cores", max(parts, "/client_health/cpu_fraction_of_all_cores"));
    number(h, "loop_thread_cpu_fraction", max(parts, "/client_health/loop_thread_cpu_fraction"));
    h.put("available_processors", sum(parts, "/client_health/available_processors"));
    int loops = 0;
    for (JsonNode p : parts) {
      loops += p.at("/client_health/event_loops").asInt(1); // absent before schema 1.5: one loop
    }
    h.put("event_loops", loops);
    double tokens = 0;
    for (JsonNode p : parts) {
      JsonNode c = p.get("client_health");
      if (c.get("cpu_seconds").isNumber() && c.get("output_tokens_per_cpu_second").isNumber()) {
        tokens += c.get("cpu_seconds").asDouble() * c.get("output_tokens_per_cpu_second").asDouble();
      }
    }
    number(h, "output_tokens_per_cpu_second", cpu > 0 ? tokens / cpu : Double.NaN);
  }

  /** Elementwise sum (or mean) of equally long arrays; empty when their lengths differ. */
  private static ArrayNode elementwise(List<JsonNode> parts, String path, boolean mean) {
    ArrayNode out = MAPPER.createArrayNode();
    int n = parts.get(0).at(path).size();
    if (parts.stream().anyMatch(p -> p.at(path).size() != n)) {
      return out;
    }
    for (int i = 0; i < n; i++) {
      double sum = 0;
      for (JsonNode p : parts) {
        JsonNode v = p.at(path).get(i);
        sum += v.isNumber() ? v.asDouble() : Double.NaN;
      }
      out.add(Double.isNaN(sum) ? null : MAPPER.getNodeFactory().numberNode(mean ? sum / parts.size() : sum));
    }
    return out;
  }

  static ObjectNode sumFields(List<JsonNode> parts, String field) {
    ObjectNode out = MAPPER.createObjectNode();
    for (JsonNode p : parts) {
      for (Map.Entry<String, JsonNode> e : p.get(field).properties()) {
        out.put(e.getKey(), out.path(e.getKey()).asLong() + e.getValue().asLong());
      }
    }
    return out;
  }

  static long sum(List<JsonNode> parts, String path) {
    return parts.stream().mapToLong(p -> p.at(path).asLong()).sum();
  }

  /** Sum of the numbers at {@code path}; NaN (null) when any part has none. */
  static double sumOrNull(List<JsonNode> parts, String path) {
    double s = 0;
    for (JsonNode p : parts) {
      JsonNode v = p.at(path);
      if (!v.isNumber()) {
        return Double.NaN;
      }
      s += v.asDouble();
    }
    return s;
  }

  private static double max(List<JsonNode> parts, String path) {
    return parts.stream().map(p -> p.at(path)).filter(JsonNode::isNumber)
        .mapToDouble(JsonNode::asDouble).max().orElse(Double.NaN);
  }

  private static double min(List<JsonNode> parts, String path) {
    return parts.stream().map(p -> p.at(path)).filter(JsonNode::isNumber)
        .mapToDouble(JsonNode::asDouble).min().orElse(0);
  }

  /** Puts {@code value}, or null when it is NaN or infinite (the writer's rule). */
  static void number(ObjectNode n, String field, double value) {
    if (Double.isFinite(value)) {
      n.put(field, value);
    } else {
      n.putNull(field);
    }
  }
}
