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

  /** Points of models and setups no fit has seen, kept out of every fit ({@link UnseenModelsTest}). */
  static final String UNSEEN = "/accuracy/unseen-points.json";

  private PublishedPoints() {}

  /**
   * A document the figures were read from.
   *
   * @param profile the engine profile its engine is simulated with ({@code vllm}, {@code sglang},
   *     {@code trt-llm}, {@code lmdeploy})
   */
  record Source(String key, String title, String url, String engine, String profile) {}

  /**
   * How the source ran its load: {@code CLOSED} keeps {@code concurrency} requests in flight over
   * many requests (genai-perf, AIPerf); {@code STATIC} runs one batch of {@code concurrency}
   * requests to completion (gptSessionBenchmark, vLLM benchmark_latency); {@code OFFLINE} sends
   * {@code requests} at once and measures until the last ends (trtllm-bench throughput, bench_serving
   * at an infinite rate); {@code POISSON} sends {@code requests} at {@code rate} per second.
   */
  enum Load {
    CLOSED,
    STATIC,
    OFFLINE,
    POISSON
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
   * @param ttftP50Ms median TTFT
   * @param itlP50Ms median ITL (for fixed lengths and no chunking, the median TPOT)
   * @param ttftP99Ms 99th percentile TTFT
   * @param tpotP99Ms 99th percentile TPOT
   */
  record Measured(
      OptionalDouble ttftMs,
      OptionalDouble itlMs,
      OptionalDouble outputTps,
      OptionalDouble outputTpsPerGpu,
      OptionalDouble batchLatencySeconds,
      OptionalDouble ttftP50Ms,
      OptionalDouble itlP50Ms,
      OptionalDouble ttftP99Ms,
      OptionalDouble tpotP99Ms) {}

  /**
   * One published measurement.
   *
   * @param model simulator model preset id, or a spec file's in accuracy/specs
   * @param gpu simulator GPU preset id, or a spec file's in accuracy/specs
   * @param inputTokensMin least prompt length: lengths are uniform in [min, inputTokens] (equal to
   *     inputTokens for fixed lengths)
   * @param outputTokensMin least output length, likewise
   * @param concurrency users in a closed loop, or the static batch size
   * @param requests requests the source sent (OFFLINE, POISSON; 0 when not stated)
   * @param ratePerSecond arrival rate of a POISSON load (0 otherwise)
   * @param kvCacheBlocks KV-cache blocks per GPU the run configured its engine with (LMDeploy's
   *     benchmark scripts set cache_max_entry_count to a block count); 0: the profile's sizing
   * @param dataParallelAttention attention groups of a data-parallel-attention run (SGLang's
   *     --enable-dp-attention: as many as the GPUs); 1: tensor-parallel attention
   * @param maxBatchedTokens the run's token budget per step (vLLM's --max-num-batched-tokens); 0:
   *     the profile's
   */
  record Point(
      String id,
      String source,
      String model,
      String modelAsPublished,
      String gpu,
      int tensorParallel,
      String weights,
      String kvCache,
      int inputTokens,
      int outputTokens,
      int inputTokensMin,
      int outputTokensMin,
      int concurrency,
      int requests,
      double ratePerSecond,
      Load load,
      Measured measured,
      int kvCacheBlocks,
      int dataParallelAttention,
      int maxBatchedTokens) {

    /** {@code "mistral-7b 1×h100-sxm fp8, 128/2048, batch 120"}. */
    String setup() {
      String who = switch (load) {
        case STATIC -> "batch " + concurrency;
        case CLOSED -> "c=" + concurrency;
        case OFFLINE -> requests + " at once";
        case POISSON -> ratePerSecond + "/s";
      };
      String lengths = inputTokensMin == inputTokens && outputTokensMin == outputTokens
          ? inputTokens + "/" + outputTokens
          : "≤" + inputTokens + "/≤" + outputTokens;
      return model + " " + tensorParallel + "×" + gpu + " " + weights + ", " + lengths + ", " + who;
    }
  }

  /** The dataset: sources and points in file order. */
  record Dataset(List<Source> sources, List<Point> points) {}

  /** Reads the fit's dataset from the test classpath. */
  static Dataset load() {
    return load(RESOURCE);
  }

  /** Reads a dataset in this format from the test classpath. */
  static Dataset load(String resource) {
    try (InputStream in =
        Objects.requireNonNull(PublishedPoints.class.getResourceAsStream(resource), resource)) {
      JsonNode root = new ObjectMapper().readTree(in);
      List<Source> sources = new ArrayList<>();
      for (JsonNode s : root.get("sources")) {
        sources.add(new Source(
            text(s, "key"), text(s, "title"), text(s, "url"), text(s, "engine"), text(s, "profile")));
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
            number(m, "batch_latency_s"),
            number(m, "ttft_p50_ms"),
            number(m, "itl_p50_ms"),
            number(m, "ttft_p99_ms"),
            number(m, "tpot_p99_ms"));
    int input = p.get("input_tokens").asInt();
    int output = p.get("output_tokens").asInt();
    return new Point(
        text(p, "id"),
        text(p, "source"),
        text(p, "model"),
        text(p, "model_as_published"),
        text(p, "gpu"),
        p.get("tp").asInt(),
        text(p, "weights"),
        text(p, "kv"),
        input,
        output,
        p.has("input_tokens_min") ? p.get("input_tokens_min").asInt() : input,
        p.has("output_tokens_min") ? p.get("output_tokens_min").asInt() : output,
        p.get("concurrency").asInt(),
        p.has("requests") ? p.get("requests").asInt() : 0,
        p.has("rate") ? p.get("rate").asDouble() : 0,
        Load.valueOf(text(p, "load").toUpperCase(java.util.Locale.ROOT)),
        measured,
        p.has("kv_cache_blocks") ? p.get("kv_cache_blocks").asInt() : 0,
        p.has("dp_attention") ? p.get("dp_attention").asInt() : 1,
        p.has("max_batched_tokens") ? p.get("max_batched_tokens").asInt() : 0);
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
