package dev.tokenmeter.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.RequestsJsonlMerger;
import dev.tokenmeter.report.SummaryJsonWriter;
import dev.tokenmeter.report.SummaryMerger;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code tokenmeter merge}: one results folder from the folders of load generators that ran side
 * by side ({@link SummaryMerger} merges the summaries, {@link RequestsJsonlMerger} the request
 * lines); prints what it merged. Stateless.
 */
public final class MergeRun {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private MergeRun() {}

  /**
   * Merges {@code dirs} into {@code outDir}. A part that is not a readable results folder of schema
   * 1.x, an {@code outDir} that already holds results, or parts of different plans (unless {@code
   * force}) are {@link IllegalArgumentException}s naming the problem; a write that fails is a
   * {@link RunFailedException}.
   */
  public static void merge(List<Path> dirs, Path outDir, boolean force, List<String> commandLine, PrintStream out,
      PrintStream err) {
    List<SummaryMerger.Part> parts = new ArrayList<>();
    for (Path dir : dirs) {
      parts.add(part(dir));
    }
    if (Files.exists(outDir.resolve("summary.json"))) {
      throw new IllegalArgumentException(outDir + " already holds results; choose an empty --out folder");
    }
    SummaryMerger.Result merged;
    try {
      merged = SummaryMerger.merge(parts, commandLine, force);
    } catch (SummaryMerger.PlanMismatchException e) {
      throw new IllegalArgumentException("the parts ran different plans: " + e.getMessage()
          + ". Merge runs of the same plan, or pass --force");
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("cannot merge: " + e.getMessage());
    }
    long lines;
    try {
      Files.createDirectories(outDir);
      SummaryJsonWriter.write(merged.summary(), outDir.resolve("summary.json"));
      lines = RequestsJsonlMerger.merge(dirs.stream().map(d -> d.resolve("requests.jsonl")).toList(),
          outDir.resolve("requests.jsonl"));
    } catch (IOException e) {
      throw new RunFailedException("cannot write the merged results to " + outDir + ": " + e.getMessage());
    }
    for (String w : merged.warnings()) {
      err.println("tokenmeter merge: WARNING: " + w);
    }
    JsonNode stages = merged.summary().get("stages");
    out.println("Merged " + parts.size() + " parts, " + stages.size() + " stages, "
        + lines + " requests: " + outDir.resolve("summary.json") + " and " + outDir.resolve("requests.jsonl"));
    for (JsonNode s : stages) {
      out.printf(Locale.ROOT, "  %s: %d completed, %d failed, %.1f output tokens/s, "
              + "TTFT p50 %.2f ms, p99 %.2f ms%n",
          s.get("label").asText(), s.at("/requests/completed").asLong(), s.at("/requests/failed").asLong(),
          s.at("/throughput/output_tokens_per_s").asDouble(Double.NaN),
          s.at("/metrics/ttft_ms/p50").asDouble(Double.NaN), s.at("/metrics/ttft_ms/p99").asDouble(Double.NaN));
    }
  }

  private static SummaryMerger.Part part(Path dir) {
    Path summary = dir.resolve("summary.json");
    if (!Files.isRegularFile(summary)) {
      throw new IllegalArgumentException(dir + " is not a results folder: no summary.json in it");
    }
    try {
      JsonNode root = MAPPER.readTree(summary.toFile());
      String version = root.path("schema_version").asText();
      if (!version.startsWith("1.")) {
        throw new IllegalArgumentException(summary + " has schema version " + version + "; this tokenmeter reads 1.x");
      }
      return new SummaryMerger.Part(dir, root);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + summary + ": " + e.getMessage());
    }
  }
}
