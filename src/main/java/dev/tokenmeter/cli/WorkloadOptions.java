package dev.tokenmeter.cli;

import dev.tokenmeter.core.engine.RequestSource;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.workload.FileWorkload;
import dev.tokenmeter.workload.LengthSpec;
import dev.tokenmeter.workload.PreparedRequests;
import dev.tokenmeter.workload.PromptFile;
import dev.tokenmeter.workload.SyntheticWorkload;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Option;

/** What each request sends. */
final class WorkloadOptions {
  /** Prompts built ahead per stage: at most this many... */
  private static final int MAX_PREPARED = 2000;
  /** ...and at most this many characters in all (~40 MB of heap). */
  private static final long MAX_PREPARED_CHARS = 20_000_000L;

  @Option(names = "--input-tokens", paramLabel = "SPEC", description = "Prompt length in tokens: 512, uniform:256,1024, normal:512,128, lognormal:512,256 (default: ${DEFAULT-VALUE}). Approximate until exact tokenizers land: see docs/METRICS.md.")
  String inputTokens = "512";

  @Option(names = "--output-tokens", paramLabel = "SPEC", description = "max_tokens per request, same forms as --input-tokens (default: ${DEFAULT-VALUE}). Add --extra-body '{\"ignore_eos\":true}' to make servers generate exactly that many.")
  String outputTokens = "256";

  @Option(names = "--prompts", paramLabel = "FILE", description = "Prompts from a JSONL file ({\"prompt\":...} or {\"messages\":[...]}) or a ShareGPT JSON file, used in order.")
  Path prompts;

  @Option(names = "--shared-prefix-tokens", paramLabel = "N", description = "Synthetic prompts start with the same N-token prefix (prefix-cache experiments; default: 0).")
  int sharedPrefixTokens;


  /** Validates everything now (bad specs, unreadable files) and returns the per-stage factory. */
  Function<StagePlan, RequestSource> factory() {
    LengthSpec out = parse("--output-tokens", outputTokens, true);
    if (sharedPrefixTokens < 0) {
      throw new UsageException("--shared-prefix-tokens must not be negative");
    }
    if (prompts != null) {
      PromptFile file = PromptFile.load(prompts);
      return plan -> new FileWorkload(file, out, plan.seed());
    }
    LengthSpec in = parse("--input-tokens", inputTokens, false);
    int prepared = (int) Math.max(16, Math.min(MAX_PREPARED, MAX_PREPARED_CHARS / Math.max(1.0, in.mean() * 5)));
    return plan ->
        new PreparedRequests(
            new SyntheticWorkload(
                in,
                out,
                plan.seed(),
                dev.tokenmeter.workload.PromptSynthesizer.standard(),
                sharedPrefixTokens),
            prepared);
  }

  private static LengthSpec parse(String option, String spec, boolean optional) {
    if (optional && (spec == null || spec.equalsIgnoreCase("none"))) {
      return null;
    }
    try {
      return LengthSpec.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new UsageException(option + ": " + e.getMessage());
    }
  }

  Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    if (prompts != null) {
      m.put("prompts_file", prompts.toString());
    } else {
      m.put("input_tokens", inputTokens);
      m.put("input_tokens_exact", false);
      m.put("shared_prefix_tokens", sharedPrefixTokens);
    }
    m.put("output_tokens", outputTokens == null ? "none" : outputTokens);
    return m;
  }
}
