package dev.tokenmeter.governance;

import java.util.Map;
import java.util.Objects;

/**
 * What a benchmark ran, as drift compares live traffic with it. Immutable once built; the arrays
 * are the caller's and must not be modified afterwards.
 *
 * @param inputTokens prompt lengths of the benchmark's requests, in tokens as the server counted
 *     them (the figure the proxy records), one value per request
 * @param outputTokens output lengths of the benchmark's requests, in tokens
 * @param models requests per model
 * @param concurrencyMin the lowest achieved concurrency of the benchmark's stages
 * @param concurrencyMax the highest achieved concurrency of the benchmark's stages
 * @param inputSpec the benchmark's --input-tokens as given ({@code "512"}), or null when unknown
 * @param outputSpec the benchmark's --output-tokens as given, or null when unknown
 * @param source where the lengths came from, in words ({@code "results/x/requests.jsonl"})
 */
public record DriftBaseline(
    double[] inputTokens,
    double[] outputTokens,
    Map<String, Long> models,
    double concurrencyMin,
    double concurrencyMax,
    String inputSpec,
    String outputSpec,
    String source) {

  public DriftBaseline {
    Objects.requireNonNull(inputTokens, "inputTokens");
    Objects.requireNonNull(outputTokens, "outputTokens");
    models = Map.copyOf(models);
    Objects.requireNonNull(source, "source");
  }
}
