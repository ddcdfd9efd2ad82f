package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.request.Phase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * What a bench run's folder records of its workload, for comparing production traffic with it:
 * per-request input and output lengths, the model, each stage's achieved concurrency and the
 * length options as given. Immutable; the arrays must not be modified.
 *
 * <p>Lengths come from {@code requests.jsonl} when the folder has it (completed requests of the
 * measurement windows, {@code input_tokens} and {@code output_tokens} as the run recorded them:
 * the server's usage when it sent one, as the proxy records). Without it, from summary.json's
 * {@code input_tokens} and {@code output_tokens} histograms, each recorded value repeated by its
 * count (HdrHistogram keeps 3 significant digits: 1,234 may read back as 1,234 or 1,235).
 *
 * @param inputTokens prompt lengths, tokens
 * @param outputTokens output lengths, tokens
 * @param model the model the run targeted, or null
 * @param achievedConcurrency each stage's achieved concurrency (time-weighted mean in flight)
 * @param inputSpec {@code settings.workload.input_tokens} as given ({@code "512"}), or null
 * @param outputSpec {@code settings.workload.output_tokens}, or null
 * @param source the file the lengths came from
 */
public record BenchWorkload(double[] inputTokens, double[] outputTokens, String model, List<Double> achievedConcurrency,
    String inputSpec, String outputSpec, Path source) {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  public BenchWorkload {
    achievedConcurrency = List.copyOf(achievedConcurrency);
  }

  /**
   * Reads the run in {@code dir}.
   *
   * @throws IllegalArgumentException naming the folder and the fix when it holds no summary.json,
   *     or when that file or requests.jsonl cannot be read
   */
  public static BenchWorkload read(Path dir) {
    Path summaryFile = dir.resolve("summary.json");
    if (!Files.isRegularFile(summaryFile)) {
      throw new IllegalArgumentException("--baseline " + dir + ": no summary.json there; name a bench run's folder"
          + " (the --out DIR of 'tokenmeter bench', e.g. results/20261125T145627Z)");
    }
    try {
      JsonNode root = MAPPER.readTree(summaryFile.toFile());
      SavedSummary summary = SummaryJsonReader.read(root);
      JsonNode workload = root.path("settings").path("workload");
      List<Double> concurrency = summary.stages().stream().map(SavedSummary.Stage::achievedConcurrency)
          .filter(c -> !Double.isNaN(c)).toList();
      String in = spec(workload.path("input_tokens"));
      String out = spec(workload.path("output_tokens"));
      Path jsonl = dir.resolve("requests.jsonl");
      if (Files.isRegularFile(jsonl)) {
        List<SavedRequest> measured = RequestsJsonlReader.read(jsonl).requests().stream()
            .filter(r -> r.ok() && r.phase() == Phase.MEASURED).toList();
        return new BenchWorkload(
            measured.stream().filter(r -> r.inputTokens() > 0).mapToDouble(SavedRequest::inputTokens).toArray(),
            measured.stream().mapToDouble(SavedRequest::outputTokens).toArray(),
            summary.model(), concurrency, in, out, jsonl);
      }
      return new BenchWorkload(values(summary, Metric.INPUT_TOKENS), values(summary, Metric.OUTPUT_TOKENS),
          summary.model(), concurrency, in, out, summaryFile);
    } catch (IOException e) {
      throw new IllegalArgumentException("--baseline " + dir + ": cannot read the run (" + e.getMessage()
          + "); name a complete bench run's folder");
    }
  }

  /** A length option as given ({@code "512"}), or null when absent, none or not a plain value. */
  private static String spec(JsonNode v) {
    return v.isTextual() && !v.asText().equalsIgnoreCase("none") || v.isNumber() ? v.asText() : null;
  }

  /** Every stage's recorded values of {@code metric}, each repeated by its count. */
  private static double[] values(SavedSummary summary, Metric metric) {
    List<Double> out = new ArrayList<>();
    for (SavedSummary.Stage st : summary.stages()) {
      Histogram h = st.histograms().get(metric);
      if (h == null) {
        continue;
      }
      for (HistogramIterationValue v : h.recordedValues()) {
        for (long i = 0; i < v.getCountAtValueIteratedTo(); i++) {
          out.add((double) h.highestEquivalentValue(v.getValueIteratedTo()));
        }
      }
    }
    return out.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
