package dev.tokenmeter.workload;

import java.util.Locale;

/**
 * The request-trace formats {@link Trace#read} understands, each as its publisher describes it.
 *
 * <pre>
 * design notes (sources)
 * - mooncake: JSONL, {"timestamp": ms since the first request, "input_length", "output_length",
 *   "hash_ids": [one id per 512-token block of the prompt; equal ids, equal blocks]}
 *   (kvcache-ai/Mooncake, FAST25-release/traces, and its description in ai-dynamo's
 *   benchmarks/data_generator/README.md and AIPerf's docs/benchmark_modes/trace_replay.md).
 * - burstgpt: CSV with the header Timestamp,Model,Request tokens,Response tokens,Total tokens,Log
 *   Type; Timestamp in seconds from 0:00 of the first day (HPMLL/BurstGPT README, release v1.1;
 *   release v2.0 adds Session ID and Elapsed time columns, read when present). Rows with 0 request
 *   or 0 response tokens are the failures the authors left in (BurstGPT_1.csv) and are skipped.
 * - azure: CSV with the header TIMESTAMP,ContextTokens,GeneratedTokens; TIMESTAMP an absolute
 *   date-time such as 2023-11-16 18:15:46.6805900 (Azure/AzurePublicDataset,
 *   AzureLLMInferenceTrace_{code,conv}.csv, 2023 and 2024).
 * - bailian: JSONL, {"chat_id", "parent_chat_id" (-1 for a conversation's first request),
 *   "timestamp": seconds since the trace's start, "input_length", "output_length", "type"
 *   (text/search/image/file), "turn", "hash_ids": [salted SipHash-2-4 of each 16-token block,
 *   remapped to sequential integers]} (alibaba-edu/qwen-bailian-usagetraces-anon, README "Data
 *   Specification of the Traces" and "Anonymization Process"; Wang et al., KVCache Cache in the
 *   Wild, USENIX ATC '25). A session is the chat id of the root its parent_chat_id chain reaches.
 * - tokenmeter: JSONL, {"at_ms", "input_tokens", "output_tokens", optional "hash_ids",
 *   "block_tokens", "session", "turn"}: this tool's own, what proxy export-trace writes.
 * </pre>
 */
public enum TraceFormat {
  MOONCAKE,
  BURSTGPT,
  AZURE,
  TOKENMETER,
  BAILIAN;

  /** Tokens per block of the format's hash ids when the trace does not say: Bailian's 16, else Mooncake's 512. */
  public int defaultBlockTokens() {
    return this == BAILIAN ? 16 : 512;
  }

  /** The name on the command line: {@code mooncake}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The format named {@code name} (case-insensitive); a one-line error naming the choices otherwise. */
  public static TraceFormat parse(String name) {
    for (TraceFormat f : values()) {
      if (f.label().equalsIgnoreCase(name.strip())) {
        return f;
      }
    }
    throw new WorkloadException("--trace-format " + name + " is not a trace format: give mooncake, bailian, burstgpt,"
        + " azure or tokenmeter (docs/TRACES.md)");
  }

  /**
   * The format of a file whose first non-blank line is {@code firstLine}, or null when none fits:
   * JSON with {@code at_ms} is tokenmeter's, with {@code chat_id} Bailian's, with {@code
   * input_length} Mooncake's; a CSV header
   * with {@code ContextTokens} Azure's, with {@code Request tokens} BurstGPT's.
   */
  static TraceFormat detect(String firstLine) {
    String line = firstLine.strip();
    if (line.startsWith("{")) {
      if (line.contains("\"at_ms\"")) {
        return TOKENMETER;
      }
      if (line.contains("\"chat_id\"")) {
        return BAILIAN;
      }
      if (line.contains("\"input_length\"")) {
        return MOONCAKE;
      }
      return null;
    }
    if (line.contains("ContextTokens") && line.contains("GeneratedTokens")) {
      return AZURE;
    }
    if (line.contains("Request tokens") && line.contains("Response tokens")) {
      return BURSTGPT;
    }
    return null;
  }
}
