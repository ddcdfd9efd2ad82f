package dev.tokenmeter.report.html;

import dev.tokenmeter.core.analysis.ClientHealth;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.LatencyOrigin;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.StageDetail;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * The tables of report.html, rendered as static HTML so they read without JavaScript: results
 * per stage (throughput, latency), errors by class, client health, and the definitions every
 * metric header links to. Pure functions of a {@link SavedSummary}.
 */
final class Tables {
  private Tables() {}

  /** A column: header metric, optional statistic ("p99"), and the cell text of a stage. */
  private record Column(MetricDoc metric, String stat, Function<SavedSummary.Stage, String> cell) {}

  static String all(SavedSummary s, String metricsDocHref) {
    StringBuilder b = new StringBuilder();
    b.append(table("throughput", "Throughput and requests per stage (measurement window only)", s, List.of(
        new Column(MetricDoc.OUTPUT_TPS, "", st -> num(st.outputTokensPerSecond())),
        new Column(MetricDoc.DECODE_TPS, "p50", st -> dist(st, "decode_tps", Distribution::p50)),
        new Column(MetricDoc.DECODE_TPS, "p10", st -> dist(st, "decode_tps", Distribution::p10)),
        new Column(MetricDoc.REQUESTS_PER_S, "", st -> num(st.requestsPerSecond())),
        new Column(MetricDoc.ACHIEVED_CONCURRENCY, "", st -> num(st.achievedConcurrency())),
        new Column(MetricDoc.COMPLETED, "", st -> Long.toString(st.completed())),
        new Column(MetricDoc.FAILED, "", st -> Long.toString(st.failed())),
        new Column(MetricDoc.STEADY_STATE, "", st -> st.steadyStateReached() ? "reached" : "not reached"))));
    b.append(table("latency", "Latency per stage, successful measured requests (TTFT and E2E: the user's wait,"
        + " from the schedule in an open loop; from the send beside it)", s, List.of(
        new Column(MetricDoc.TTFT, "p50", st -> dist(st, headline(st).ttft(), Distribution::p50)),
        new Column(MetricDoc.TTFT, "p90", st -> dist(st, headline(st).ttft(), Distribution::p90)),
        new Column(MetricDoc.TTFT, "p99", st -> dist(st, headline(st).ttft(), Distribution::p99)),
        new Column(MetricDoc.TTFT_FROM_SENT, "p99", st -> dist(st, Metric.TTFT, Distribution::p99)),
        new Column(MetricDoc.TPOT, "p50", st -> dist(st, Metric.TPOT, Distribution::p50)),
        new Column(MetricDoc.TPOT, "p99", st -> dist(st, Metric.TPOT, Distribution::p99)),
        new Column(MetricDoc.TPOT_UNDEFINED, "", st -> st.detail().tpotUndefined() < 0 ? "-"
            : Long.toString(st.detail().tpotUndefined())),
        new Column(MetricDoc.ITL, "p50", st -> dist(st, Metric.ITL, Distribution::p50)),
        new Column(MetricDoc.ITL, "p99", st -> dist(st, Metric.ITL, Distribution::p99)),
        new Column(MetricDoc.ITL_CHUNK, "p50", st -> dist(st, Metric.ITL_CHUNK, Distribution::p50)),
        new Column(MetricDoc.ITL_CHUNK, "p99", st -> dist(st, Metric.ITL_CHUNK, Distribution::p99)),
        new Column(MetricDoc.E2E, "p50", st -> dist(st, headline(st).e2e(), Distribution::p50)),
        new Column(MetricDoc.E2E, "p99", st -> dist(st, headline(st).e2e(), Distribution::p99)),
        new Column(MetricDoc.E2E_FROM_SENT, "p99", st -> dist(st, Metric.E2E, Distribution::p99)))));
    b.append(errors(s));
    b.append(table("client-health", "Client health per stage (is tokenmeter itself the bottleneck?)", s, List.of(
        new Column(MetricDoc.LOOP_LAG, "", st -> health(st, h -> num(h.loopLagMillis().p99()))),
        new Column(MetricDoc.SEND_LAG, "", st -> health(st, h -> num(h.sendLagMillis().p99()))),
        new Column(MetricDoc.CLIENT_CPU, "", st -> health(st, h -> percent(h.cpuFractionOfOneCore()))),
        new Column(MetricDoc.LOOP_CPU, "", st -> health(st, h -> percent(h.loopThreadCpuFraction()))),
        new Column(MetricDoc.TOKENS_PER_CPU_S, "", st -> health(st, h -> num(h.outputTokensPerCpuSecond()))),
        new Column(null, "Verdict", st -> health(st, h -> (h.bottleneck()
            ? "client is the bottleneck: " + String.join("; ", h.reasons()) : "ok")
            + (h.oneCpu() ? "; " + ClientHealth.ONE_CPU_NOTE : ""))))));
    if (s.repeats() != null) {
      b.append("<h2 id=\"repeats\">Repeats</h2>\n").append(RepeatsCost.repeatsTable(s));
    }
    if (s.pricing() != null) {
      b.append("<h2 id=\"cost\">Cost</h2>\n").append(RepeatsCost.costTables(s));
    }
    b.append(definitions(metricsDocHref, shown(s)));
    return b.toString();
  }

  private static String table(String id, String caption, SavedSummary s, List<Column> columns) {
    StringBuilder b = new StringBuilder();
    b.append("<div class=\"table-wrap\"><table id=\"table-").append(id).append("\">\n<caption>")
        .append(Html.esc(caption)).append("</caption>\n<thead><tr><th scope=\"col\">Stage</th>");
    for (Column c : columns) {
      b.append("<th scope=\"col\">").append(header(c)).append("</th>");
    }
    b.append("</tr></thead>\n<tbody>\n");
    for (SavedSummary.Stage st : s.stages()) {
      b.append("<tr><th scope=\"row\">").append(Html.esc(Headline.stageName(s, st))).append("</th>");
      for (Column c : columns) {
        b.append("<td>").append(Html.esc(c.cell().apply(st))).append("</td>");
      }
      b.append("</tr>\n");
    }
    return b.append("</tbody></table></div>\n").toString();
  }

  private static String header(Column c) {
    if (c.metric() == null) {
      return Html.esc(c.stat());
    }
    MetricDoc m = c.metric();
    String stat = c.stat().isEmpty() ? "" : " " + c.stat();
    String unit = m.unit().isEmpty() ? "" : " <span class=\"unit\">(" + Html.esc(m.unit()) + ")</span>";
    return "<a href=\"#" + m.id() + "\">" + Html.esc(m.label() + stat) + "</a>" + unit;
  }

  private static String errors(SavedSummary s) {
    Set<String> classes = new LinkedHashSet<>();
    s.stages().forEach(st -> classes.addAll(st.errors().keySet()));
    if (classes.isEmpty()) {
      return "<p id=\"table-errors\">No measured request failed.</p>\n";
    }
    StringBuilder b = new StringBuilder("<div class=\"table-wrap\"><table id=\"table-errors\">\n<caption>"
        + "<a href=\"#" + MetricDoc.FAILED.id() + "\">Failed measured requests</a> by error class</caption>\n"
        + "<thead><tr><th scope=\"col\">Stage</th>");
    for (String c : classes) {
      b.append("<th scope=\"col\"><code>").append(Html.esc(c)).append("</code> <span class=\"unit\">(requests)</span></th>");
    }
    b.append("</tr></thead>\n<tbody>\n");
    for (SavedSummary.Stage st : s.stages()) {
      b.append("<tr><th scope=\"row\">").append(Html.esc(Headline.stageName(s, st))).append("</th>");
      for (String c : classes) {
        b.append("<td>").append(st.errors().getOrDefault(c, 0L)).append("</td>");
      }
      b.append("</tr>\n");
    }
    return b.append("</tbody></table></div>\n").toString();
  }

  /** The metrics report.html names for {@code s}: repeats' and cost's only when it has them. */
  static List<MetricDoc> shown(SavedSummary s) {
    return java.util.Arrays.stream(MetricDoc.values()).filter(m -> switch (m.section()) {
      case COMPARING -> m == MetricDoc.ERROR_RATE && s.repeats() != null;
      case REPEATS -> s.repeats() != null;
      case COST -> s.pricing() != null;
      default -> true;
    }).toList();
  }

  /** The definitions list of {@code metrics} only. */
  static String definitions(String metricsDocHref, List<MetricDoc> metrics) {
    StringBuilder b = new StringBuilder("<h2 id=\"definitions\">Definitions</h2>\n<dl class=\"defs\">\n");
    for (MetricDoc m : metrics) {
      String source = "docs/METRICS.md § " + m.sectionTitle();
      String link = metricsDocHref == null ? Html.esc(source)
          : "<a href=\"" + Html.esc(metricsDocHref) + "#" + m.anchor() + "\">" + Html.esc(source) + "</a>";
      b.append("<dt id=\"").append(m.id()).append("\">").append(Html.esc(m.label()))
          .append(m.unit().isEmpty() ? "" : " (" + Html.esc(m.unit()) + ")").append("</dt><dd>")
          .append(Html.esc(m.definition())).append(". ").append(link).append("</dd>\n");
    }
    return b.append("</dl>\n").toString();
  }

  private static String dist(SavedSummary.Stage st, Metric m, Function<Distribution, Double> stat) {
    return dist(st, m.reportKey(), stat);
  }

  /** The origin of a saved stage's headline TTFT and E2E: the schedule in an open loop. */
  private static LatencyOrigin headline(SavedSummary.Stage st) {
    return LatencyOrigin.headlineOf(st.detail().loadModel());
  }

  private static String dist(SavedSummary.Stage st, String key, Function<Distribution, Double> stat) {
    Distribution d = st.metrics().get(key);
    return d == null || d.count() == 0 ? "–" : num(stat.apply(d));
  }

  private static String health(SavedSummary.Stage st, Function<StageDetail.Health, String> cell) {
    StageDetail.Health h = st.detail().health();
    return h == null ? "–" : cell.apply(h);
  }

  private static String percent(double fraction) {
    return Double.isNaN(fraction) ? "–" : String.format(Locale.ROOT, "%.1f", fraction * 100);
  }

  /** Table number: 3 significant digits below 100, whole numbers from 100 up, "–" for NaN. */
  static String num(double v) {
    if (Double.isNaN(v)) {
      return "–";
    }
    double a = Math.abs(v);
    String f = a >= 100 ? "%,.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f";
    return String.format(Locale.ROOT, f, v);
  }
}
