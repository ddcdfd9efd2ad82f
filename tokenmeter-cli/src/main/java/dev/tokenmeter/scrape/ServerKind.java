package dev.tokenmeter.scrape;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The inference servers whose {@code /metrics} names tokenmeter knows, each with the series that
 * stand for tokenmeter's common names ({@link Reading.Value}, {@link Reading.Histogram}). The
 * first name of a list that the scrape has wins (a newer name before the older one it replaced).
 * Names and sources: docs/METRICS.md, "Server metrics".
 */
public enum ServerKind {
  VLLM("vLLM", "vllm:", Map.of(
      Reading.Value.RUNNING, List.of("vllm:num_requests_running"),
      Reading.Value.WAITING, List.of("vllm:num_requests_waiting"),
      Reading.Value.KV_CACHE_USAGE, List.of("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
      Reading.Value.PREFIX_CACHE_HIT_RATE, List.of("vllm:gpu_prefix_cache_hit_rate"),
      Reading.Value.PREEMPTIONS, List.of("vllm:num_preemptions_total"),
      Reading.Value.PREFIX_CACHE_QUERIES, List.of("vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"),
      Reading.Value.PREFIX_CACHE_HITS, List.of("vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"),
      Reading.Value.PROMPT_TOKENS, List.of("vllm:prompt_tokens_total"),
      Reading.Value.GENERATION_TOKENS, List.of("vllm:generation_tokens_total")), Map.of(
      Reading.Histogram.TTFT, List.of("vllm:time_to_first_token_seconds"),
      Reading.Histogram.TPOT, List.of("vllm:time_per_output_token_seconds", "vllm:inter_token_latency_seconds"),
      Reading.Histogram.QUEUE_TIME, List.of("vllm:request_queue_time_seconds"),
      Reading.Histogram.PREFILL_TIME, List.of("vllm:request_prefill_time_seconds"),
      Reading.Histogram.DECODE_TIME, List.of("vllm:request_decode_time_seconds"))),
  SGLANG("SGLang", "sglang:", Map.of(
      Reading.Value.RUNNING, List.of("sglang:num_running_reqs"),
      Reading.Value.WAITING, List.of("sglang:num_queue_reqs"),
      Reading.Value.KV_CACHE_USAGE, List.of("sglang:token_usage"),
      Reading.Value.PREFIX_CACHE_HIT_RATE, List.of("sglang:cache_hit_rate"),
      Reading.Value.PROMPT_TOKENS, List.of("sglang:prompt_tokens_total"),
      Reading.Value.GENERATION_TOKENS, List.of("sglang:generation_tokens_total")), Map.of(
      Reading.Histogram.TTFT, List.of("sglang:time_to_first_token_seconds"),
      Reading.Histogram.TPOT, List.of("sglang:time_per_output_token_seconds"))),
  TGI("TGI", "tgi_", Map.of(
      Reading.Value.RUNNING, List.of("tgi_batch_current_size"),
      Reading.Value.WAITING, List.of("tgi_queue_size"),
      Reading.Value.PROMPT_TOKENS, List.of("tgi_request_input_length_sum"),
      Reading.Value.GENERATION_TOKENS, List.of("tgi_request_generated_tokens_sum")), Map.of(
      Reading.Histogram.TPOT, List.of("tgi_request_mean_time_per_token_duration"),
      Reading.Histogram.QUEUE_TIME, List.of("tgi_request_queue_duration"))),
  LLAMA_CPP("llama.cpp", "llamacpp:", Map.of(
      Reading.Value.RUNNING, List.of("llamacpp:requests_processing"),
      Reading.Value.WAITING, List.of("llamacpp:requests_deferred"),
      Reading.Value.KV_CACHE_USAGE, List.of("llamacpp:kv_cache_usage_ratio"),
      Reading.Value.PROMPT_TOKENS, List.of("llamacpp:prompt_tokens_total"),
      Reading.Value.GENERATION_TOKENS, List.of("llamacpp:tokens_predicted_total")), Map.of()),
  /** Triton Inference Server, and NVIDIA NIM containers built on it: queue time only as a running total. */
  TRITON("Triton", "nv_inference_", Map.of(
      Reading.Value.WAITING, List.of("nv_inference_pending_request_count"),
      Reading.Value.QUEUE_MICROS_TOTAL, List.of("nv_inference_queue_duration_us"),
      Reading.Value.REQUESTS_FINISHED, List.of("nv_inference_request_success")), Map.of()),
  /** Any other server: its gauges and counters are kept as they are ({@link Reading#raw()}). */
  UNKNOWN("unknown server", null, Map.of(), Map.of());

  private final String displayName;
  private final String prefix;
  private final Map<Reading.Value, List<String>> values;
  private final Map<Reading.Histogram, List<String>> histograms;

  ServerKind(String displayName, String prefix, Map<Reading.Value, List<String>> values,
      Map<Reading.Histogram, List<String>> histograms) {
    this.displayName = displayName;
    this.prefix = prefix;
    this.values = values;
    this.histograms = histograms;
  }

  /** {@code "vLLM"}: the server's name in reports. */
  public String displayName() {
    return displayName;
  }

  /** {@code "vllm"}: the name in summary.json. */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT).replace("_", "");
  }

  /** The server of {@code wireName}, {@link #UNKNOWN} for any other. */
  public static ServerKind ofWireName(String wireName) {
    for (ServerKind k : values()) {
      if (k.wireName().equals(wireName)) {
        return k;
      }
    }
    return UNKNOWN;
  }

  /** The series that stand for {@code h}, newest name first; empty when this server has none. */
  public List<String> names(Reading.Histogram h) {
    return histograms.getOrDefault(h, List.of());
  }

  /** The series that stand for {@code v}, newest name first; empty when this server has none. */
  public List<String> names(Reading.Value v) {
    return values.getOrDefault(v, List.of());
  }

  /** The known server whose names the scrape has (the first sample with a known prefix decides). */
  public static ServerKind detect(Exposition e) {
    for (Exposition.Sample s : e.samples()) {
      for (ServerKind k : values()) {
        if (k.prefix != null && s.name().startsWith(k.prefix)) {
          return k;
        }
      }
    }
    return UNKNOWN;
  }

  /** The scrape in common names, taken at {@code atNanos} (ticker time). */
  public Reading read(Exposition e, long atNanos) {
    EnumMap<Reading.Value, Double> v = new EnumMap<>(Reading.Value.class);
    values.forEach((value, names) -> names.stream().map(e::sum).filter(x -> !Double.isNaN(x)).findFirst()
        .ifPresent(x -> v.put(value, x)));
    EnumMap<Reading.Histogram, Buckets> h = new EnumMap<>(Reading.Histogram.class);
    histograms.forEach((hist, names) -> names.stream().map(e::histogram).filter(b -> b != null).findFirst()
        .ifPresent(b -> h.put(hist, b)));
    return new Reading(atNanos, v, h, this == UNKNOWN ? Reading.rawOf(e) : Map.of());
  }
}
