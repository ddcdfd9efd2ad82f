package dev.tokenmeter.report;

import static dev.tokenmeter.report.Markdown.escape;

import dev.tokenmeter.core.slo.RunAnalysis;
import dev.tokenmeter.core.slo.SearchResult;
import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.core.slo.SloReport;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The SLO verdicts as text: a pass/fail table for the terminal and a Markdown summary fit for
 * {@code $GITHUB_STEP_SUMMARY}. Pure functions of a {@link RunAnalysis} whose {@code slo} is set.
 * In a capacity search, failed probes above the answer are expected: they are marked as probes,
 * and the headline follows {@link RunAnalysis#sloViolated()}.
 */
public final class SloRender {
  private SloRender() {}

  /** The terminal table: one row per stage, one column per objective, and the verdict. */
  public static String console(RunAnalysis a) {
    SloReport r = a.slo();
    List<Slo.Objective> objectives = r.slo().objectives();
    long passedStages = r.stages().stream().filter(SloReport.StageVerdict::passed).count();
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "SLO %s: %s (%d of %d stages met every objective)%n",
        objectives.stream().map(Slo.Objective::describe).collect(Collectors.joining(", ")),
        a.sloViolated() ? "VIOLATED" : "met", passedStages, r.stages().size()));
    int[] widths = objectives.stream().mapToInt(o -> Math.max(12, header(o).length())).toArray();
    sb.append(String.format(Locale.ROOT, "  %-22s", "load"));
    for (int i = 0; i < objectives.size(); i++) {
      sb.append(String.format(Locale.ROOT, "  %-" + widths[i] + "s", header(objectives.get(i))));
    }
    sb.append("  verdict").append(System.lineSeparator());
    for (SloReport.StageVerdict v : r.stages()) {
      sb.append(String.format(Locale.ROOT, "  %-22s", v.label()));
      for (int i = 0; i < objectives.size(); i++) {
        SloReport.Check c = v.checks().get(i);
        String cell = (c.passed() ? "ok " : "FAIL ") + (Double.isNaN(c.measured()) ? "no data" : ConsoleReport.num(c.measured()));
        sb.append(String.format(Locale.ROOT, "  %-" + widths[i] + "s", cell));
      }
      sb.append("  ").append(v.passed() ? "pass" : "FAIL: " + v.reasons()).append(System.lineSeparator());
    }
    if (a.search() != null) {
      sb.append(a.search().statement()).append(System.lineSeparator());
    }
    return sb.toString();
  }

  /** The Markdown summary: a headline, a table with ✅/❌, the capacity answer and the knee. */
  public static String markdown(RunAnalysis a, String target) {
    SloReport r = a.slo();
    List<Slo.Objective> objectives = r.slo().objectives();
    StringBuilder sb = new StringBuilder();
    sb.append("### tokenmeter SLO ").append(a.sloViolated() ? "❌ violated" : "✅ met").append("\n\n");
    sb.append("Target `").append(target).append("`, SLO `").append(r.slo().text()).append("`\n\n");
    sb.append("| load |");
    objectives.forEach(o -> sb.append(' ').append(escape(o.describe())).append(" |"));
    sb.append(" result |\n|---|");
    objectives.forEach(o -> sb.append("---:|"));
    sb.append("---|\n");
    SearchResult search = a.search();
    for (SloReport.StageVerdict v : r.stages()) {
      sb.append("| ").append(escape(v.label())).append(" |");
      for (SloReport.Check c : v.checks()) {
        sb.append(' ').append(c.passed() ? "✅ " : "❌ ")
            .append(Double.isNaN(c.measured()) ? "no data" : Slo.number(c.measured()) + unit(c.objective()))
            .append(" |");
      }
      String result = v.passed() ? "✅ pass" : "❌ " + escape(v.reasons());
      if (search != null && !v.passed()) {
        result = "❌ probe failed: " + escape(v.reasons());
      }
      sb.append(' ').append(result).append(" |\n");
    }
    if (search != null) {
      sb.append("\n**Capacity:** ").append(escape(search.statement())).append('\n');
    }
    if (a.sweep() != null && a.sweep().points().size() > 1) {
      sb.append('\n').append(escape(a.sweep().knee().statement())).append('\n');
    }
    return sb.toString();
  }

  private static String header(Slo.Objective o) {
    return o.name() + " " + o.op().symbol() + " " + Slo.number(o.threshold()) + unit(o);
  }

  private static String unit(Slo.Objective o) {
    String u = o.metric().unit();
    return u.equals("%") ? "%" : " " + u;
  }
}
