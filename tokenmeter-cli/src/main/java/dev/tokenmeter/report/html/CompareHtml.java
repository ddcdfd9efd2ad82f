package dev.tokenmeter.report.html;

import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.core.analysis.StageComparison.Row;
import dev.tokenmeter.report.CompareReport;
import dev.tokenmeter.report.RunFolder;
import dev.tokenmeter.report.SavedSummary;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders {@code compare.html}: the comparison of {@code tokenmeter compare} as one self-contained
 * page, built like report.html ({@link Page}): at the top the verdict in plain words ({@link
 * CompareHeadline}), then every run's degradation curve and TTFT/TPOT percentiles against load on
 * shared charts, the TTFT and TPOT CDFs of each matched stage overlaid, and per compared run and
 * matched stage the side-by-side table the console prints (same cells, {@link
 * CompareReport#cells}), each metric linked to its definition. The charts draw compare.json's own
 * numbers ({@link CompareData}). Stateless and thread-safe.
 *
 * <pre>{@code
 * CompareHtml.write(Path.of("compare.html"), runs, comparisons, settings);
 * }</pre>
 */
public final class CompareHtml {
  private CompareHtml() {}

  /** Writes the page to {@code out}, atomically. */
  public static void write(
      Path out, List<RunFolder> runs, List<RunComparison> comparisons, StageComparison.Settings settings)
      throws IOException {
    Page.write(out, render(runs, comparisons, settings, Page.metricsDocHrefFor(out)));
  }

  /**
   * The page. {@code metricsDocHref}: the link to docs/METRICS.md (relative to the page), or null
   * to name the file without a link.
   */
  public static String render(
      List<RunFolder> runs, List<RunComparison> comparisons, StageComparison.Settings settings,
      String metricsDocHref) throws IOException {
    List<CompareData.Point> points = CompareData.points(runs, comparisons);
    Map<String, String> values = Map.of(
        "title", Html.esc(title(runs)),
        "banner", banner(runs),
        "verdict", verdict(comparisons, settings),
        "method", Html.esc(CompareReport.footnote(settings)),
        "runs", runs(runs),
        "cdf_figures", cdfFigures(points),
        "tables", tables(comparisons, settings),
        "definitions", Tables.definitions(metricsDocHref, List.of(MetricDoc.TTFT, MetricDoc.TPOT,
            MetricDoc.ITL, MetricDoc.E2E, MetricDoc.DECODE_TPS, MetricDoc.OUTPUT_TPS, MetricDoc.REQUESTS_PER_S,
            MetricDoc.ERROR_RATE, MetricDoc.SIGNIFICANCE)));
    return Page.render(title(runs), Page.fill(Page.resource("compare.html"), values),
        CompareData.of(runs, comparisons, settings), "compare.js");
  }

  private static String title(List<RunFolder> runs) {
    List<String> others = new ArrayList<>();
    for (int i = 1; i < runs.size(); i++) {
      others.add(CompareReport.name(i));
    }
    return "tokenmeter compare: " + String.join(", ", others) + " against A";
  }

  /** Which runs are simulated or partial; empty when none. */
  private static String banner(List<RunFolder> runs) {
    List<String> simulated = new ArrayList<>();
    List<String> partial = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      SavedSummary s = runs.get(i).summary();
      if (s.simulated()) {
        simulated.add(CompareReport.name(i));
      }
      if (s.partial()) {
        partial.add(CompareReport.name(i));
      }
    }
    StringBuilder b = new StringBuilder();
    if (!simulated.isEmpty()) {
      b.append("<p class=\"banner simulated\" id=\"simulated\"><strong>Simulated, not measured:</strong> ")
          .append(Html.esc(String.join(", ", simulated))).append(" (tokenmeter simulate).</p>\n");
    }
    if (!partial.isEmpty()) {
      b.append("<p class=\"banner partial\" id=\"partial\"><strong>Partial:</strong> ")
          .append(Html.esc(String.join(", ", partial)))
          .append(" stopped early; only the stages that finished are compared.</p>\n");
    }
    return b.toString();
  }

  private static String verdict(List<RunComparison> comparisons, StageComparison.Settings settings) {
    StringBuilder b = new StringBuilder();
    for (int c = 0; c < comparisons.size(); c++) {
      String name = CompareReport.name(c + 1);
      b.append("<p class=\"answer\" id=\"verdict-").append(name).append("\">")
          .append(Html.esc(CompareHeadline.sentence(name, comparisons.get(c), settings))).append("</p>\n");
    }
    return b.toString();
  }

  private static String runs(List<RunFolder> runs) {
    StringBuilder b = new StringBuilder("<dl class=\"run\">\n");
    for (int i = 0; i < runs.size(); i++) {
      RunFolder r = runs.get(i);
      SavedSummary s = r.summary();
      b.append("<dt>").append(CompareReport.name(i)).append(i == 0 ? " (baseline)" : "").append("</dt><dd>")
          .append(Html.esc(r.dir() + ": " + s.targetUrl() + (s.model() == null ? "" : ", model " + s.model())
              + ", started " + HtmlReport.instant(s.startedAt()) + ", " + s.stages().size()
              + (s.stages().size() == 1 ? " stage" : " stages")
              + (r.hasRequests() ? "" : "; no requests.jsonl, so nothing was tested")))
          .append("</dd>\n");
    }
    return b.append("</dl>\n").toString();
  }

  /** Per matched load: a heading and the TTFT and TPOT CDF canvases. */
  private static String cdfFigures(List<CompareData.Point> points) {
    StringBuilder b = new StringBuilder();
    for (int k = 0; k < points.size(); k++) {
      CompareData.Point p = points.get(k);
      List<String> names = p.entries().stream().map(CompareData.Entry::run).toList();
      String label = p.label() + ": " + String.join(", ", names);
      b.append("<section class=\"stage\" aria-labelledby=\"cdf-").append(k).append("\">\n<h3 id=\"cdf-").append(k)
          .append("\">").append(Html.esc(label)).append("</h3>\n");
      figure(b, "chart-cdf-ttft-" + k, "CDF of TTFT at " + p.label() + " (ms, log scale), one line per run",
          MetricDoc.TTFT);
      figure(b, "chart-cdf-tpot-" + k, "CDF of TPOT at " + p.label() + " (ms, log scale), one line per run",
          MetricDoc.TPOT);
      b.append("</section>\n");
    }
    return b.toString();
  }

  private static void figure(StringBuilder b, String id, String caption, MetricDoc metric) {
    b.append("<figure><div class=\"chart\"><canvas id=\"").append(id).append("\" role=\"img\" aria-label=\"")
        .append(Html.esc(caption)).append("\"></canvas></div><figcaption>").append(Html.esc(caption))
        .append(" (<a href=\"#").append(metric.id()).append("\">").append(Html.esc(metric.label()))
        .append("</a>)</figcaption></figure>\n");
  }

  /** Per compared run and matched stage, the console's table with linked metric names. */
  static String tables(List<RunComparison> comparisons, StageComparison.Settings settings) {
    StringBuilder b = new StringBuilder();
    String ci = Html.esc(CompareReport.ci(settings.alpha()) + " of change");
    for (int c = 0; c < comparisons.size(); c++) {
      String name = CompareReport.name(c + 1);
      RunComparison rc = comparisons.get(c);
      for (int s = 0; s < rc.stages().size(); s++) {
        StageComparison st = rc.stages().get(s);
        b.append("<div class=\"table-wrap\"><table class=\"compare\" id=\"table-").append(name).append('-').append(s)
            .append("\">\n<caption>").append(Html.esc(name + " vs A, " + CompareReport.stageTitle(st, name)))
            .append("</caption>\n<thead><tr><th scope=\"col\">Metric</th><th scope=\"col\">A</th><th scope=\"col\">")
            .append(name).append("</th><th scope=\"col\">Change</th><th scope=\"col\">").append(ci)
            .append("</th><th scope=\"col\"><a href=\"#").append(MetricDoc.SIGNIFICANCE.id())
            .append("\">Verdict</a></th></tr></thead>\n<tbody>\n");
        for (Row r : st.rows()) {
          String[] cells = CompareReport.cells(r, name, settings);
          MetricDoc doc = MetricDoc.of(r.quantity());
          b.append("<tr class=\"").append(r.verdict().name().toLowerCase(Locale.ROOT).replace('_', '-'))
              .append("\"><th scope=\"row\"><a href=\"#").append(doc.id()).append("\">")
              .append(Html.esc(r.quantity().title())).append("</a> <span class=\"unit\">(")
              .append(Html.esc(r.quantity().unit())).append(")</span></th>");
          for (int i = 1; i < cells.length; i++) {
            b.append("<td>").append(Html.esc(cells[i])).append("</td>");
          }
          b.append("</tr>\n");
        }
        b.append("</tbody></table></div>\n");
      }
      if (!rc.samePlan() && (!rc.onlyInA().isEmpty() || !rc.onlyInB().isEmpty())) {
        b.append("<p class=\"note\">").append(Html.esc("The stage plans of A and " + name
            + " differ: stages are matched by load label."
            + (rc.onlyInA().isEmpty() ? "" : " Only in A (not compared): " + String.join(", ", rc.onlyInA()) + ".")
            + (rc.onlyInB().isEmpty() ? "" : " Only in " + name + " (not compared): "
                + String.join(", ", rc.onlyInB()) + "."))).append("</p>\n");
      }
    }
    return b.toString();
  }
}
