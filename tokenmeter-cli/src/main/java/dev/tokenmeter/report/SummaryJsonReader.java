package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.request.ErrorClass;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Reads a {@code summary.json} written by {@link SummaryJsonWriter} back into a {@link
 * SavedSummary}. Accepts any {@code 1.x} schema version (minor versions only add fields, which are
 * ignored here); refuses other majors. Stateless and thread-safe.
 */
public final class SummaryJsonReader {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private SummaryJsonReader() {}

  public static SavedSummary read(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return read(in);
    }
  }

  public static SavedSummary read(InputStream in) throws IOException {
    return of(MAPPER.readTree(in));
  }

  public static SavedSummary read(String json) throws IOException {
    return of(MAPPER.readTree(json));
  }

  /** Reads an already parsed summary.json tree. */
  public static SavedSummary read(JsonNode root) throws IOException {
    return of(root);
  }

  private static SavedSummary of(JsonNode root) throws IOException {
    String version = text(root, "schema_version");
    if (version == null || !version.startsWith("1.")) {
      throw new IOException("unsupported summary.json schema version " + version);
    }
    List<SavedSummary.Stage> stages = new ArrayList<>();
    for (JsonNode s : required(root, "stages")) {
      stages.add(stage(s));
    }
    JsonNode tool = required(root, "tool");
    JsonNode target = required(root, "target");
    return new SavedSummary(
        version,
        text(tool, "name"),
        text(tool, "version"),
        Instant.parse(text(root, "started_at")),
        Instant.parse(text(root, "ended_at")),
        text(target, "url"),
        text(target, "api"),
        text(target, "model"),
        required(root, "partial").asBoolean(),
        text(root, "partial_reason"),
        stages,
        text(root, "partial_detail"),
        StageDetailReader.simulation(root),
        RepeatsCostReader.repeats(root),
        RepeatsCostReader.pricing(root));
  }

  private static SavedSummary.Stage stage(JsonNode s) throws IOException {
    Map<String, Distribution> metrics = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : required(s, "metrics").properties()) {
      metrics.put(e.getKey(), distribution(e.getValue()));
    }
    Map<String, Long> errors = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : required(s, "errors").properties()) {
      errors.put(e.getKey(), e.getValue().asLong());
    }
    // Folders written before issue 43 counted the tool's own cancellations as failures: read them
    // as runs write them now, so report and compare never count them as errors.
    Long cancelled = errors.remove(ErrorClass.CANCELLED.wireName());
    Map<Metric, Histogram> histograms = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : required(s, "histograms").properties()) {
      Metric m = Metric.ofWireName(e.getKey());
      String unit = text(e.getValue(), "unit");
      if (!m.unit().wireName().equals(unit)) {
        throw new IOException("histogram " + e.getKey() + " in unit " + unit + ", expected "
            + m.unit().wireName());
      }
      histograms.put(m, HistogramCodec.decode(text(e.getValue(), "data")));
    }
    JsonNode throughput = required(s, "throughput");
    JsonNode requests = required(s, "requests");
    return new SavedSummary.Stage(
        required(s, "index").asInt(),
        text(s, "label"),
        metrics,
        number(throughput, "output_tokens_per_s"),
        number(throughput, "input_tokens_per_s"),
        number(throughput, "requests_per_s"),
        number(s, "achieved_concurrency"),
        required(requests, "completed").asLong(),
        required(requests, "failed").asLong() - (cancelled == null ? 0 : cancelled),
        errors,
        required(required(s, "steady_state"), "reached").asBoolean(),
        histograms,
        StageDetailReader.read(s));
  }

  static Distribution distribution(JsonNode d) throws IOException {
    return new Distribution(
        required(d, "count").asLong(),
        number(d, "min"),
        number(d, "mean"),
        number(d, "p1"),
        number(d, "p5"),
        number(d, "p10"),
        number(d, "p50"),
        number(d, "p90"),
        number(d, "p95"),
        number(d, "p99"),
        number(d, "p999"),
        number(d, "max"));
  }

  private static JsonNode required(JsonNode node, String field) throws IOException {
    JsonNode v = node.get(field);
    if (v == null) {
      throw new IOException("summary.json lacks " + field);
    }
    return v;
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static double number(JsonNode node, String field) throws IOException {
    JsonNode v = required(node, field);
    return v.isNull() ? Double.NaN : v.asDouble();
  }
}
