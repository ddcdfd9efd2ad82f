package dev.tokenmeter.report.html;

import dev.tokenmeter.core.analysis.ComparedQuantity;
import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.core.analysis.StageComparison.Row;
import dev.tokenmeter.core.analysis.StageComparison.Verdict;
import dev.tokenmeter.report.CompareReport;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The verdict at the top of compare.html, one sentence per compared run, in plain words: whether B
 * is slower or faster than A, with the largest significant changes as evidence ({@code "B is slower
 * than A: TPOT p50 +59% (significant, p<0.001) at c=1; ..."}). Uses the rows' own verdicts
 * (significant = better or worse at α after Holm's correction, not negligible); computes nothing
 * statistical. Pure functions.
 */
final class CompareHeadline {
  /** At most this many changes are named per run; the rest are counted. */
  static final int MAX_NAMED = 3;

  private CompareHeadline() {}

  /** A significant row and the stage it belongs to. */
  private record Finding(String stage, Row row) {}

  /** The sentence for run {@code b} (its name, "B") against the baseline A. */
  static String sentence(String b, RunComparison rc, StageComparison.Settings settings) {
    if (rc.stages().isEmpty()) {
      return b + " shares no stage with A: nothing was compared.";
    }
    List<Finding> found = new ArrayList<>();
    int tested = 0;
    for (StageComparison s : rc.stages()) {
      for (Row r : s.rows()) {
        tested += r.verdict() == Verdict.NOT_TESTED ? 0 : 1;
        if (r.verdict() == Verdict.BETTER || r.verdict() == Verdict.WORSE) {
          found.add(new Finding(s.label(), r));
        }
      }
    }
    String where = rc.stages().size() == 1 ? "at " + rc.stages().get(0).label()
        : "at any of the " + rc.stages().size() + " matched stages";
    if (tested == 0) {
      return b + " and A were not tested against each other (no per-request values: requests.jsonl"
          + " missing); the tables show the numbers side by side.";
    }
    if (found.isEmpty()) {
      return "No significant difference between " + b + " and A " + where + " (α = "
          + alpha(settings) + ", Holm-adjusted; changes under " + Headline.num(settings.minChangePercent())
          + "% count as negligible).";
    }
    // Largest relative change first (one without a percentage, from 0, after them), each metric
    // once before any twice: "TTFT p50 at c=64; TPOT p50 at c=64", not TTFT p50 at two loads.
    found.sort(Comparator.comparingDouble((Finding f) -> magnitude(f.row())).reversed());
    List<Finding> first = new ArrayList<>();
    List<Finding> again = new ArrayList<>();
    for (Finding f : found) {
      (first.stream().anyMatch(x -> x.row().quantity() == f.row().quantity()) ? again : first).add(f);
    }
    first.addAll(again);
    List<String> named = new ArrayList<>();
    for (Finding f : first.subList(0, Math.min(MAX_NAMED, first.size()))) {
      named.add(f.row().quantity().title() + " " + change(f.row()) + " (significant, "
          + CompareReport.p(f.row().test().pAdjusted(), settings.alpha()) + ") at " + f.stage());
    }
    int more = found.size() - named.size();
    return lead(b, found) + ": " + String.join("; ", named)
        + (more > 0 ? "; and " + more + " more significant " + (more == 1 ? "change" : "changes") : "") + ".";
  }

  /** "B is slower than A", "B is faster than A", "B has more errors than A", or a mixed verdict. */
  private static String lead(String b, List<Finding> found) {
    long worse = found.stream().filter(f -> f.row().verdict() == Verdict.WORSE).count();
    long better = found.size() - worse;
    boolean onlyErrors = found.stream().allMatch(f -> f.row().quantity() == ComparedQuantity.ERROR_RATE);
    if (worse > 0 && better > 0) {
      return b + " is better than A on " + better + (better == 1 ? " number" : " numbers") + " and worse on "
          + worse;
    }
    if (onlyErrors) {
      return b + " has " + (worse > 0 ? "more" : "fewer") + " errors than A";
    }
    return b + " is " + (worse > 0 ? "slower" : "faster") + " than A";
  }

  private static double magnitude(Row r) {
    double p = r.changePercent();
    return Double.isNaN(p) ? 0 : Math.abs(p);
  }

  /** "+12%", "-3.4%", or "from 0% to 2.5%" when there is no percentage (A's value is 0). */
  static String change(Row r) {
    double p = r.changePercent();
    if (Double.isNaN(p)) {
      String unit = r.quantity().unit().equals("%") ? "%" : " " + r.quantity().unit();
      return "from " + Headline.num(r.a()) + unit + " to " + Headline.num(r.b()) + unit;
    }
    String f = Math.abs(p) >= 10 ? "%+.0f%%" : "%+.1f%%";
    return String.format(Locale.ROOT, f, p);
  }

  private static String alpha(StageComparison.Settings s) {
    return String.valueOf(s.alpha());
  }
}
