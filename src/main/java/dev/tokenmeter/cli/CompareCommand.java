package dev.tokenmeter.cli;

import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.report.CompareJsonWriter;
import dev.tokenmeter.report.CompareReport;
import dev.tokenmeter.report.RunFolder;
import dev.tokenmeter.report.html.CompareHtml;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tokenmeter compare A B [C ...]}: every run against the first, stage by stage, with the
 * change of each headline number and whether it is significant. Reads results folders only.
 */
@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Compares results folders: each against the first (the baseline), stage by stage (matched by load",
      "label). Per stage: TTFT, TPOT, ITL, E2E p50/p99, per-user decode TPS p50/p10, output tokens/s,",
      "requests/s and error rate, with the change and a significance test on the per-request values",
      "(Mann-Whitney U, bootstrap, Fisher's exact; Holm-adjusted; docs/METRICS.md)."
    })
final class CompareCommand implements Callable<Integer> {
  @Parameters(paramLabel = "DIR", arity = "2..*", description = "Results folders (summary.json, requests.jsonl); the first is the baseline.")
  List<Path> dirs;

  @Option(names = "--alpha", paramLabel = "A", description = "Significance level, after Holm's correction per stage (default: ${DEFAULT-VALUE}).")
  double alpha = 0.05;

  @Option(names = "--markdown", paramLabel = "FILE", description = "Also write the tables as GitHub-flavoured Markdown (for a pull request).")
  Path markdown;

  @Option(names = "--json", paramLabel = "FILE", description = "Also write compare.json: rows, tests and both runs' curves (docs/RESULTS.md).")
  Path json;

  @Option(names = "--html", paramLabel = "FILE", description = "Also write the comparison as one self-contained HTML page (compare.html): the verdict, every run's curves overlaid, the tables.")
  Path html;

  @Option(names = "--bootstrap", paramLabel = "N", description = "Bootstrap resamples (default: ${DEFAULT-VALUE}).")
  int resamples = 1_000;

  @Option(names = "--seed", paramLabel = "N", description = "Seed of the bootstrap (default: ${DEFAULT-VALUE}); the same seed gives the same intervals.")
  long seed = 1;

  @Option(names = "--min-change", paramLabel = "PCT", description = "Smallest change of a percentile, in %% of the baseline, reported as better or worse when significant; smaller ones are negligible (default: ${DEFAULT-VALUE}).")
  double minChangePercent = 1.0;

  @Override
  public Integer call() {
    StageComparison.Settings settings = settings();
    List<RunFolder> runs = new ArrayList<>();
    for (Path dir : dirs) {
      runs.add(read(dir));
    }
    List<RunComparison> comparisons = compare(runs, settings);
    System.out.print(CompareReport.console(runs, comparisons, settings));
    if (comparisons.stream().allMatch(c -> c.stages().isEmpty())) {
      throw new UsageException("no stage of the runs matched: their load labels all differ;"
          + " compare runs of the same loads");
    }
    if (markdown != null) {
      write(markdown, () -> Files.writeString(markdown,
          CompareReport.markdown(runs, comparisons, settings), StandardCharsets.UTF_8));
    }
    if (json != null) {
      write(json, () -> CompareJsonWriter.write(json, runs, comparisons, settings));
    }
    if (html != null) {
      write(html, () -> CompareHtml.write(html, runs, comparisons, settings));
      System.out.println("Comparison: " + html + " (open it in a browser; works offline)");
    }
    return Main.EXIT_OK;
  }

  /** The test settings of the options (their defaults on a fresh instance). */
  StageComparison.Settings settings() {
    try {
      return new StageComparison.Settings(alpha, resamples, seed, minChangePercent);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--alpha, --bootstrap or --min-change: " + e.getMessage());
    }
  }

  /** Every run after the first against the first, stage by stage. */
  static List<RunComparison> compare(List<RunFolder> runs, StageComparison.Settings settings) {
    List<RunComparison> comparisons = new ArrayList<>();
    for (int i = 1; i < runs.size(); i++) {
      comparisons.add(RunComparison.of(runs.get(0).comparable(), runs.get(i).comparable(), settings));
    }
    return comparisons;
  }

  /** Reads a results folder; a missing or unreadable one is a usage error. */
  static RunFolder read(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new UsageException(dir + " is not a results folder (no such directory)");
    }
    if (!Files.isRegularFile(dir.resolve("summary.json"))) {
      throw new UsageException(dir + " is not a results folder: no summary.json in it");
    }
    try {
      return RunFolder.read(dir);
    } catch (IOException | RuntimeException e) {
      throw new UsageException("cannot read " + dir + ": " + e.getMessage());
    }
  }

  private interface Io {
    void run() throws IOException;
  }

  private static void write(Path file, Io io) {
    try {
      io.run();
    } catch (IOException e) {
      throw new RunFailedException("cannot write " + file + ": " + e.getMessage());
    }
  }
}
