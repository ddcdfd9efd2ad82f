package dev.tokenmeter.report;

import static dev.tokenmeter.report.Markdown.escape;

import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.core.analysis.StageComparison.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders run comparisons as console text and as GitHub-flavoured Markdown: pure functions of the
 * {@link RunComparison}s, one per compared run against the baseline (run 0). Runs are named A
 * (the baseline), B, C, ... in the order given. Stateless.
 */
public final class CompareReport {
  private static final String NL = System.lineSeparator();

  private CompareReport() {}

  /** {@code "A"}, {@code "B"}, ... for run {@code i}; {@code "R27"} past Z. */
  public static String name(int i) {
    return i < 26 ? String.valueOf((char) ('A' + i)) : "R" + (i + 1);
  }

  /** The console text: the runs, then per compared run and matched stage a table. */
  public static String console(
      List<RunFolder> runs, List<RunComparison> comparisons, StageComparison.Settings settings) {
    double alpha = settings.alpha();
    StringBuilder sb = new StringBuilder();
    runs(sb, runs, "");
    for (int c = 0; c < comparisons.size(); c++) {
      String b = name(c + 1);
      RunComparison rc = comparisons.get(c);
      sb.append(NL).append(b).append(" vs A").append(NL);
      for (StageComparison s : rc.stages()) {
        sb.append(stageTitle(s, b)).append(NL);
        List<String[]> table = new ArrayList<>();
        table.add(new String[] {"metric", "A", b, "change", ci(alpha) + " of change", "verdict"});
        for (Row r : s.rows()) {
          table.add(cells(r, b, settings));
        }
        sb.append(aligned(table));
      }
      unmatched(sb, rc, b, "");
    }
    sb.append(NL).append(footnote(settings)).append(NL);
    return sb.toString();
  }

  /** The Markdown text, for a pull request. */
  public static String markdown(
      List<RunFolder> runs, List<RunComparison> comparisons, StageComparison.Settings settings) {
    double alpha = settings.alpha();
    StringBuilder sb = new StringBuilder("## tokenmeter compare").append("\n\n");
    runs(sb, runs, "- ");
    for (int c = 0; c < comparisons.size(); c++) {
      String b = name(c + 1);
      RunComparison rc = comparisons.get(c);
      for (StageComparison s : rc.stages()) {
        sb.append("\n### ").append(b).append(" vs A, ").append(escape(stageTitle(s, b))).append("\n\n");
        sb.append("| metric | A | ").append(b).append(" | change | ").append(ci(alpha))
            .append(" of change | verdict |\n");
        sb.append("| --- | ---: | ---: | ---: | ---: | --- |\n");
        for (Row r : s.rows()) {
          String[] cells = cells(r, b, settings);
          sb.append('|');
          for (String cell : cells) {
            sb.append(' ').append(escape(cell)).append(" |");
          }
          sb.append('\n');
        }
      }
      unmatched(sb, rc, b, "\n");
    }
    sb.append('\n').append(footnote(settings)).append('\n');
    return sb.toString();
  }

  /** The verdict in words: {@code "B slower, significant (p<0.001)"}. */
  public static String verdict(Row r, String b, StageComparison.Settings settings) {
    String p = p(r.test().pAdjusted(), settings.alpha());
    return switch (r.verdict()) {
      case NOT_TESTED -> "n/a: " + r.test().note();
      case NEGLIGIBLE ->
          "negligible: significant (" + p + ") but under " + percent(settings.minChangePercent());
      case NO_SIGNIFICANT_DIFFERENCE -> "no significant difference (" + p + ")";
      case BETTER, WORSE ->
          b + " " + (r.larger() ? r.quantity().largerWord() : r.quantity().smallerWord())
              + ", significant (" + p + ")";
    };
  }

  /**
   * {@code "p<0.001"}, {@code "p=0.012"}: two significant digits, three when two would round a
   * p-value below α up to α (0.0497 at α 0.05 shows as 0.0497, not 0.050).
   */
  public static String p(double p, double alpha) {
    if (p < 0.001) {
      return "p<0.001";
    }
    String two = String.format(Locale.ROOT, "%.2g", p);
    return "p=" + (p < alpha && Double.parseDouble(two) >= alpha ? String.format(Locale.ROOT, "%.3g", p) : two);
  }

  /**
   * A row's cells as the console and Markdown show them: metric (unit), A, B, change (with %), the
   * interval of the change, the verdict in words.
   */
  public static String[] cells(Row r, String b, StageComparison.Settings settings) {
    String change = Double.isNaN(r.change()) ? "-"
        : signed(r.change()) + (Double.isNaN(r.changePercent()) ? ""
            : String.format(Locale.ROOT, " (%+.1f%%)", r.changePercent()));
    String interval = Double.isNaN(r.test().ciLow()) ? "-"
        : "[" + signed(r.test().ciLow()) + ", " + signed(r.test().ciHigh()) + "]";
    return new String[] {
      r.quantity().title() + " (" + r.quantity().unit() + ")",
      ConsoleReport.num(r.a()),
      ConsoleReport.num(r.b()),
      change,
      interval,
      verdict(r, b, settings)
    };
  }

  private static String signed(double v) {
    String s = ConsoleReport.num(v);
    return v > 0 ? "+" + s : s;
  }

  /**
   * {@code "Stage c=8 (A #0, B #0): 410 vs 398 successful measured requests; p-values rest on 12
   * one-second blocks per side"}: with {@code --repeat}, {@code "5 runs per side"}.
   */
  public static String stageTitle(StageComparison s, String b) {
    String basis = s.basis();
    return String.format(Locale.ROOT, "Stage %s (A #%d, %s #%d): %d vs %d successful measured requests%s",
        s.label(), s.a().index(), b, s.b().index(), s.a().completed(), s.b().completed(),
        basis == null ? "" : "; p-values rest on " + basis);
  }

  private static void runs(StringBuilder sb, List<RunFolder> runs, String bullet) {
    for (int i = 0; i < runs.size(); i++) {
      SavedSummary s = runs.get(i).summary();
      sb.append(bullet).append(name(i)).append(i == 0 ? " (baseline): " : ": ")
          .append(runs.get(i).dir()).append(" - ").append(s.targetUrl())
          .append(s.model() == null ? "" : ", model " + s.model())
          .append(", started ").append(s.startedAt())
          .append(s.partial() ? ", PARTIAL (" + s.partialReason() + ")" : "")
          .append(runs.get(i).hasRequests() ? "" : ", no requests.jsonl: nothing tested")
          .append(bullet.isEmpty() ? NL : "\n");
    }
  }

  private static void unmatched(StringBuilder sb, RunComparison rc, String b, String lead) {
    if (rc.samePlan()) {
      return;
    }
    String nl = lead.isEmpty() ? NL : "\n";
    sb.append(lead).append("The stage plans differ: stages are matched by load label.").append(nl);
    if (!rc.onlyInA().isEmpty()) {
      sb.append("  only in A (not compared): ").append(String.join(", ", rc.onlyInA())).append(nl);
    }
    if (!rc.onlyInB().isEmpty()) {
      sb.append("  only in ").append(b).append(" (not compared): ")
          .append(String.join(", ", rc.onlyInB())).append(nl);
    }
  }

  /** {@code "95% CI"} at level 1 − α. */
  public static String ci(double alpha) {
    return String.format(Locale.ROOT, "%.0f%% CI", 100 * (1 - alpha));
  }

  /** How the rows were tested, in one paragraph. */
  public static String footnote(StageComparison.Settings s) {
    return "p: two-sided, Holm-adjusted over the tested rows of each stage; significant when p < "
        + s.alpha() + ", negligible when the change is under " + percent(s.minChangePercent())
        + " of A. Requests of one run share the server's state, so the tests rest on independent"
        + " units: runs with --repeat (Welch's t-test over the runs' percentiles), else blocks of time"
        + " (p50 rows: Welch's t-test over the blocks' medians; tail rows: bootstrap drawing whole"
        + " blocks, " + s.resamples() + " resamples); error rate: Fisher's exact test over requests."
        + " CI: of the change, from the same units. Definitions: docs/METRICS.md, \"Comparing runs\".";
  }

  private static String percent(double v) {
    return (v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v)) + "%";
  }

  /** Columns padded to their widest cell; text columns left-aligned, numbers right-aligned. */
  static String aligned(List<String[]> rows) {
    int columns = rows.get(0).length;
    int[] width = new int[columns];
    for (String[] row : rows) {
      for (int c = 0; c < columns; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] row : rows) {
      sb.append(' ');
      for (int c = 0; c < columns; c++) {
        boolean left = c == 0 || c == columns - 1;
        String cell = left ? pad(row[c], width[c], true) : pad(row[c], width[c], false);
        sb.append(' ').append(c == columns - 1 ? row[c] : cell).append(c == columns - 1 ? "" : " ");
      }
      sb.append(NL);
    }
    return sb.toString();
  }

  private static String pad(String s, int width, boolean left) {
    String space = " ".repeat(width - s.length());
    return left ? s + space : space + s;
  }
}
