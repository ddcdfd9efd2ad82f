package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.Repeats;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.report.ConsoleReport;
import dev.tokenmeter.report.RepeatsReport;
import dev.tokenmeter.report.SessionWords;
import dev.tokenmeter.report.html.HtmlReport;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What a {@link BenchRun} prints on the terminal, in words: each stage's announcement before it
 * runs ({@link #describe}), each lane's stage table after it (headed by the variant's name when the
 * run has variants), the repeats table, and where the results were written. Renders only: the
 * figures come from the run's {@link StageResult}s. Reads the run's lanes as the run adds them;
 * called from the run's thread.
 */
final class BenchConsole {
  private final List<LaneRun> lanes;
  private final Cost.Model cost;
  private final PrintStream out;

  /** Over the run's own {@code lanes} list, which it fills as it opens them. */
  BenchConsole(List<LaneRun> lanes, Cost.Model cost, PrintStream out) {
    this.lanes = lanes;
    this.cost = cost;
    this.out = out;
  }

  /** {@code "Variant b:\n"} over a lane's tables when the run has variants, else nothing. */
  String heading(LaneRun lane) {
    return lanes.size() == 1 ? "" : "Variant " + lane.lane().name() + ":" + System.lineSeparator();
  }

  /** Each lane's table of one stage, {@code rs} in lane order, with its run-to-max, conversation and cost lines. */
  void stage(List<StageResult> rs, int planned) {
    for (int i = 0; i < rs.size(); i++) {
      out.println();
      out.print(heading(lanes.get(i)) + ConsoleReport.stage(rs.get(i), planned));
      String asked = RunToMax.asked(lanes.get(i).lane().endpoint().extraBodyJson());
      if (asked != null) {
        out.print(ConsoleReport.ranToMax(rs.get(i).finishes(), asked));
      }
      if (rs.get(i).sessions() != null) {
        out.println("  conversations: " + SessionWords.of(rs.get(i).sessions()));
      }
      if (rs.get(i).completions() != null) {
        out.println("  completion: " + rs.get(i).completions().inWords());
      }
      RunCost.print(out, cost, rs.get(i));
    }
    out.flush();
  }

  /** Where a lane's results are: summary.json, requests.jsonl and the HTML report. */
  static void results(Path dir, PrintStream out) {
    out.println();
    out.println("Results: " + dir.resolve("summary.json") + " and " + dir.resolve("requests.jsonl"));
    HtmlReport.printLocation(dir, out);
  }

  /** {@link BenchRun#printRepeats}: the repeats table, when the run repeated its stages. */
  static void repeats(PrintStream out, Repeats repeats) {
    if (repeats != null && !repeats.groups().isEmpty()) {
      out.println();
      out.print(RepeatsReport.render(repeats));
    }
  }

  /** {@link BenchRun#describe}: the stage's announcement, {@code count} stages planned (-1: open-ended). */
  static String describe(StagePlan p, int count) {
    String window =
        switch (p.stop()) {
          case StopCondition.Duration d -> fmt(d.nanos()) + " window";
          case StopCondition.Requests r -> r.count() + " measured requests";
        };
    return "Stage " + (p.index() + 1) + (count < 0 ? "" : "/" + count) + ": " + p.load().label() + ", warm-up "
        + fmt(p.warmupNanos()) + ", " + window + ", cool-down " + fmt(p.cooldownNanos()) + sent(p);
  }

  /**
   * What the stage sends beyond its measured requests, said before it runs: {@code --requests 40}
   * sent 84-88 (2.1-2.2 × N) with the default 10 s warm-up and 5 s cool-down (issue 43).
   */
  private static String sent(StagePlan p) {
    if (p.maxRequests() > 0) {
      return "; at most " + p.maxRequests() + " requests sent"
          + (p.stop() instanceof StopCondition.Requests r && p.warmupNanos() > 0
              ? " (" + (p.maxRequests() - r.count()) + " in the warm-up at most)" : "");
    }
    if (p.stop() instanceof StopCondition.Requests && p.warmupNanos() + p.cooldownNanos() > 0) {
      return "; the warm-up and cool-down send more requests, unmeasured (--max-requests M caps all)";
    }
    return "";
  }

  private static String fmt(long nanos) {
    double sec = nanos / 1e9;
    return sec == Math.rint(sec) ? (long) sec + "s" : String.format(Locale.ROOT, "%.2fs", sec);
  }
}
