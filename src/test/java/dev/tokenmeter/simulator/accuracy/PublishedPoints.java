package dev.tokenmeter.simulator.accuracy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * The accuracy study's dataset, {@code src/test/resources/accuracy/published-points.json}:
 * published, measured serving results and where each was read. Immutable.
 */
final class PublishedPoints {
  static final String RESOURCE = "/accuracy/published-points.json";

  private PublishedPoints() {}

  /** A document the figures were read from. */
  record Source(String key, String title, String url, String engine) {}

  /**
   * How the source ran its load: {@code CLOSED} keeps {@code concurrency} requests in flight over
   * many requests (genai-perf, AIPerf); {@code STATIC} runs one batch of {@code concurrency}
   * requests to completion (gptSessionBenchmark, vLLM benchmark_latency).
   */
  enum Load {
    CLOSED,
    STATIC
  }

  /**
   * What a source measured; absent figures are empty.
   *
   * @param ttftMs mean time to first token
   * @param itlMs mean inter-token latency as the tool defines it: (e2e − TTFT) / (output − 1)
   *     averaged over requests, i.e. mean TPOT
   * @param outputTps output tokens per second, all requests together
   * @param outputTpsPerGpu the same divided by the GPUs
   * @param batchLatencySeconds time one static batch took from start to its last token
   */
  record Measured(
      OptionalDouble ttftMs,
      OptionalDouble itlMs,
      OptionalDouble outputTps,
      OptionalDouble outputTpsPerGpu,
      OptionalDouble batchLatencySeconds) {}

  /**
   * One published measurement.
   *
   * @param calibration whether the point is in the calibration set (else held out)
   * @param model simulator model preset id
   * @param gpu simulator GPU preset id
   * @param concurrency users in a closed loop, or the static batch size
   */
  record Point(
      String id,
      boolean calibration,
      String source,
      String model,
      String modelAsPublished,
      String gpu,
      int tensorParallel,
      String weights,
      String kvCache,
      int inputTokens,
      int outputTokens,
      int concurrency,
      Load load,
      Measured measured) {

    /** {@code "mistral-7b 1×h100-sxm fp8, 128/2048, batch 120"}. */
    String setup() {
      String who = load == Load.STATIC ? "batch " : "c=";
      return model + " " + tensorParallel + "×" + gpu + " " + weights + ", " + inputTokens + "/"
          + outputTokens + ", " + who + concurrency;
    }
  }

  /** The dataset: sources and points in file order. */
  record Dataset(List<Source> sources, List<Point> points) {}

  /** Reads the dataset from the test classpath. */
  static Dataset load() {
    try (InputStream in =
        Objects.requireNonNull(PublishedPoints.class.getResourceAsStream(RESOURCE), RESOURCE)) {
      JsonNode root = new ObjectMapper().readTree(in);
      List<Source> sources = new ArrayList<>();
      for (JsonNode s : root.get("sources")) {
        sources.add(new Source(text(s, "key"), text(s, "title"), text(s, "url"), text(s, "engine")));
      }
      List<Point> points = new ArrayList<>();
      for (JsonNode p : root.get("points")) {
        points.add(point(p));
      }
      return new Dataset(List.copyOf(sources), List.copyOf(points));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Point point(JsonNode p) {
    JsonNode m = p.get("measured");
    Measured measured =
        new Measured(
            number(m, "ttft_ms"),
            number(m, "itl_ms"),
            number(m, "output_tps"),
            number(m, "output_tps_per_gpu"),
            number(m, "batch_latency_s"));
    return new Point(
        text(p, "id"),
        "calibration".equals(text(p, "set")),
        text(p, "source"),
        text(p, "model"),
        text(p, "model_as_published"),
        text(p, "gpu"),
        p.get("tp").asInt(),
        text(p, "weights"),
        text(p, "kv"),
        p.get("input_tokens").asInt(),
        p.get("output_tokens").asInt(),
        p.get("concurrency").asInt(),
        "static".equals(text(p, "load")) ? Load.STATIC : Load.CLOSED,
        measured);
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      throw new IllegalStateException("published-points.json: missing '" + field + "' in " + node);
    }
    return v.asText();
  }

  private static OptionalDouble number(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? OptionalDouble.empty() : OptionalDouble.of(v.asDouble());
  }
}
