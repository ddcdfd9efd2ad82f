package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.core.analysis.StageSample;
import dev.tokenmeter.core.production.ProductionRequest;
import dev.tokenmeter.core.production.ProductionStages;
import dev.tokenmeter.report.CompareJsonWriter;
import dev.tokenmeter.report.CompareReport;
import dev.tokenmeter.report.ProductionCompareReport;
import dev.tokenmeter.report.RunFolder;
import dev.tokenmeter.report.html.CompareHtml;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Comparing saved runs, as {@code tokenmeter compare} and the end of a {@code bench --variant} run
 * do: the folders read back, every run after the first against the first, stage by stage, and the
 * comparison written as {@code compare.md}, {@code compare.json} and {@code compare.html}.
 * Stateless.
 */
public final class CompareRun {
  private CompareRun() {}

  /**
   * {@code tokenmeter compare}: reads {@code dirs}, compares every run with the first, prints the
   * tables on {@code out} and writes the files asked for (null: not written). No stage in common
   * is an {@link IllegalArgumentException} (after the tables, which say so).
   */
  public static void compareAndWrite(List<Path> dirs, StageComparison.Settings settings, Path markdown, Path json,
      Path html, PrintStream out) {
    List<RunFolder> runs = new ArrayList<>();
    for (Path dir : dirs) {
      runs.add(read(dir));
    }
    List<RunComparison> comparisons = compare(runs, settings);
    out.print(CompareReport.console(runs, comparisons, settings));
    if (comparisons.stream().allMatch(c -> c.stages().isEmpty())) {
      throw new IllegalArgumentException("no stage of the runs matched: their load labels all differ;"
          + " compare runs of the same loads");
    }
    write(runs, comparisons, settings, markdown, json, html);
    if (html != null) {
      out.println("Comparison: " + html + " (open it in a browser; works offline)");
    }
  }

  /**
   * {@code tokenmeter compare DIR --production LEDGER}: the bench run in {@code benchDir} (A)
   * against production traffic (B), at each concurrency both have: production's requests binned by
   * the concurrency in flight at their start ({@link ProductionStages}), matched with the bench
   * stages of the same {@code c=N}. Prints the verdicts and tables on {@code out}; no concurrency in
   * common is an {@link IllegalArgumentException} naming both sides' loads.
   *
   * @param production the production side's name for the header (ledger and window)
   */
  public static RunComparison compareProduction(Path benchDir, List<ProductionRequest> production, String productionName,
      StageComparison.Settings settings, PrintStream out) {
    RunFolder bench = read(benchDir);
    List<StageSample> bins = ProductionStages.of(production);
    RunComparison rc = RunComparison.of(bench.comparable(), bins, settings);
    if (rc.stages().isEmpty()) {
      throw new IllegalArgumentException("no concurrency in common: the benchmark ran "
          + String.join(", ", bench.comparable().stream().map(StageSample::label).toList())
          + ", production had " + String.join(", ", bins.stream().map(StageSample::label).toList())
          + " in flight; compare a closed-loop (--concurrency) bench run at the loads production sees");
    }
    out.print(ProductionCompareReport.console(bench, productionName, rc, settings));
    return rc;
  }

  /**
   * Writes the comparison as Markdown, JSON and HTML into the files given (null: not written).
   *
   * @throws RunFailedException naming the file that could not be written
   */
  public static void write(List<RunFolder> runs, List<RunComparison> comparisons, StageComparison.Settings settings,
      Path markdown, Path json, Path html) {
    if (markdown != null) {
      write(markdown, () -> Files.writeString(markdown, CompareReport.markdown(runs, comparisons, settings),
          StandardCharsets.UTF_8));
    }
    if (json != null) {
      write(json, () -> CompareJsonWriter.write(json, runs, comparisons, settings));
    }
    if (html != null) {
      write(html, () -> CompareHtml.write(html, runs, comparisons, settings));
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

  /** Every run after the first against the first, stage by stage. */
  public static List<RunComparison> compare(List<RunFolder> runs, StageComparison.Settings settings) {
    List<RunComparison> comparisons = new ArrayList<>();
    for (int i = 1; i < runs.size(); i++) {
      comparisons.add(RunComparison.of(runs.get(0).comparable(), runs.get(i).comparable(), settings));
    }
    return comparisons;
  }

  /**
   * Reads a results folder given by the user; a missing or unreadable one is an {@link
   * IllegalArgumentException} naming it (a usage error).
   */
  public static RunFolder read(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException(dir + " is not a results folder (no such directory)");
    }
    if (!Files.isRegularFile(dir.resolve("summary.json"))) {
      throw new IllegalArgumentException(dir + " is not a results folder: no summary.json in it");
    }
    try {
      return RunFolder.read(dir);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot read " + dir + ": " + e.getMessage());
    }
  }
}
