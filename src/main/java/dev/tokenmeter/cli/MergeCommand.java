package dev.tokenmeter.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.RequestsJsonlMerger;
import dev.tokenmeter.report.SummaryJsonWriter;
import dev.tokenmeter.report.SummaryMerger;
import dev.tokenmeter.run.RunFailedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tokenmeter merge DIR... --out DIR}: one results folder from load generators that ran side
 * by side against the same target with the same plan, the basis for load beyond one machine.
 */
@Command(
    name = "merge",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Combines the results folders of load generators that ran at the same time, against the same",
      "target, with the same plan: per stage, histograms add exactly, counts and throughputs add, the",
      "load is the sum (c=8 on two machines is c=16). Writes summary.json (with merged_from) and",
      "requests.jsonl (every part's lines, with a part field) to --out."
    })
final class MergeCommand implements Callable<Integer> {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "DIR", arity = "2..*", description = "Results folders of the parts.")
  List<Path> dirs;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder for the merged results (created; must not hold a summary.json).")
  Path out;

  @Option(names = "--force", description = "Merge even when the plans differ (stage count, labels, model): stages are merged by index up to the shortest part.")
  boolean force;

  @Override
  public Integer call() {
    List<SummaryMerger.Part> parts = new ArrayList<>();
    for (Path dir : dirs) {
      Path summary = dir.resolve("summary.json");
      if (!Files.isRegularFile(summary)) {
        throw new UsageException(dir + " is not a results folder: no summary.json in it");
      }
      try {
        JsonNode root = MAPPER.readTree(summary.toFile());
        String version = root.path("schema_version").asText();
        if (!version.startsWith("1.")) {
          throw new UsageException(summary + " has schema version " + version + "; this tokenmeter reads 1.x");
        }
        parts.add(new SummaryMerger.Part(dir, root));
      } catch (IOException e) {
        throw new UsageException("cannot read " + summary + ": " + e.getMessage());
      }
    }
    if (Files.exists(out.resolve("summary.json"))) {
      throw new UsageException(out + " already holds results; choose an empty --out folder");
    }
    List<String> commandLine = new ArrayList<>(List.of("tokenmeter", spec.name()));
    commandLine.addAll(spec.commandLine().getParseResult().originalArgs());
    SummaryMerger.Result merged;
    try {
      merged = SummaryMerger.merge(parts, commandLine, force);
    } catch (SummaryMerger.PlanMismatchException e) {
      throw new UsageException("the parts ran different plans: " + e.getMessage()
          + ". Merge runs of the same plan, or pass --force");
    } catch (RuntimeException e) {
      throw new UsageException("cannot merge: " + e.getMessage());
    }
    long lines;
    try {
      Files.createDirectories(out);
      SummaryJsonWriter.write(merged.summary(), out.resolve("summary.json"));
      lines = RequestsJsonlMerger.merge(dirs.stream().map(d -> d.resolve("requests.jsonl")).toList(),
          out.resolve("requests.jsonl"));
    } catch (IOException e) {
      throw new RunFailedException("cannot write the merged results to " + out + ": " + e.getMessage());
    }
    for (String w : merged.warnings()) {
      System.err.println("tokenmeter merge: WARNING: " + w);
    }
    JsonNode stages = merged.summary().get("stages");
    System.out.println("Merged " + parts.size() + " parts, " + stages.size() + " stages, "
        + lines + " requests: " + out.resolve("summary.json") + " and " + out.resolve("requests.jsonl"));
    for (JsonNode s : stages) {
      System.out.printf(java.util.Locale.ROOT, "  %s: %d completed, %d failed, %.1f output tokens/s, "
              + "TTFT p50 %.2f ms, p99 %.2f ms%n",
          s.get("label").asText(), s.at("/requests/completed").asLong(), s.at("/requests/failed").asLong(),
          s.at("/throughput/output_tokens_per_s").asDouble(Double.NaN),
          s.at("/metrics/ttft_ms/p50").asDouble(Double.NaN), s.at("/metrics/ttft_ms/p99").asDouble(Double.NaN));
    }
    return Main.EXIT_OK;
  }
}
