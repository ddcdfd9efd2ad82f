package dev.tokenmeter.report.html;

import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.production.InFlightCurve;
import dev.tokenmeter.core.production.ProductionSummary;
import dev.tokenmeter.report.ProductionJsonWriter;
import dev.tokenmeter.report.ProductionWords;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The production report's report.html: the bench report's design (the same skeleton, styles, chart
 * helpers and headline) over a window of the proxy's ledger. Its charts draw from production.json's
 * own content inlined as the page's data, so page and file cannot disagree. Stateless.
 */
public final class ProductionHtml {
  private ProductionHtml() {}

  /** Writes the page for {@code s} into {@code dir/report.html} atomically; returns its path. */
  public static Path write(Path dir, ProductionSummary s, String ledger) throws IOException {
    Path out = dir.resolve(HtmlReport.FILE_NAME);
    Page.write(out, render(s, ledger));
    return out;
  }

  /** The page for {@code s}, read from {@code ledger} (its display name). */
  public static String render(ProductionSummary s, String ledger) throws IOException {
    String title = "tokenmeter production report: " + ledger + scope(s);
    Map<String, String> values = Map.of(
        "title", Html.esc(title),
        "headline", headline(ProductionWords.sentences(s)),
        "tenants", tenants(s),
        "bucket", Html.esc(bucket(s.bucketSeconds())),
        "curve", curve(s.curve()),
        "window", window(s, ledger));
    return Page.render(title, Page.fill(Page.resource("production.html"), values),
        ProductionJsonWriter.tree(s, ledger), "production.js");
  }

  private static String scope(ProductionSummary s) {
    return (s.tenantOrNull() == null ? "" : ", tenant " + s.tenantOrNull())
        + (s.modelOrNull() == null ? "" : ", model " + s.modelOrNull());
  }

  private static String headline(List<String> sentences) {
    StringBuilder b = new StringBuilder();
    String[] ids = {"answer", "knee", "latency"};
    for (int i = 0; i < sentences.size(); i++) {
      b.append("<p class=\"").append(i == 0 ? "answer" : "knee").append("\" id=\"").append(ids[i]).append("\">")
          .append(Html.esc(sentences.get(i))).append("</p>\n");
    }
    return b.toString();
  }

  private static String bucket(long seconds) {
    return seconds % 3600 == 0 ? seconds / 3600 + " h" : seconds % 60 == 0 ? seconds / 60 + " min" : seconds + " s";
  }

  private static String curve(InFlightCurve c) {
    StringBuilder b = table("table-curve", "Per concurrency in flight at start (completed requests; ms, tokens/s)",
        "c", "requests", "errors", "TPS/user p50", "TPS/user p10", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99",
        "in knee search");
    for (InFlightCurve.Bin bin : c.bins()) {
      row(b, bin.label(), count(bin.requests()), count(bin.errors()), num(bin.decodeTps(), Distribution::p50),
          num(bin.decodeTps(), Distribution::p10), num(bin.ttftMs(), Distribution::p50),
          num(bin.ttftMs(), Distribution::p99), num(bin.tpotMs(), Distribution::p50),
          num(bin.tpotMs(), Distribution::p99), bin.enoughForKnee() ? "yes" : "no (under "
              + InFlightCurve.MIN_KNEE_VALUES + ")");
    }
    return b.append("</tbody></table></div>\n").toString();
  }

  private static String tenants(ProductionSummary s) {
    StringBuilder b = table("table-tenants", "Per tenant", "tenant", "requests", "errors", "input tokens",
        "output tokens", "spend", "unpriced requests");
    for (ProductionSummary.TenantRow t : s.tenants()) {
      String spend = t.spend().isEmpty() ? "-" : t.spend().entrySet().stream()
          .map(e -> String.format(java.util.Locale.ROOT, "%.4f %s", e.getValue(), e.getKey()).strip())
          .collect(Collectors.joining(", "));
      row(b, t.tenant(), count(t.requests()), count(t.errors()), count(t.inputTokens()), count(t.outputTokens()),
          spend, count(t.unpriced()));
    }
    return b.append("</tbody></table></div>\n").toString();
  }

  private static StringBuilder table(String id, String caption, String... heads) {
    StringBuilder b = new StringBuilder("<div class=\"table-wrap\"><table id=\"").append(id).append("\"><caption>")
        .append(Html.esc(caption)).append("</caption>\n<thead><tr>");
    for (String h : heads) {
      b.append("<th scope=\"col\">").append(Html.esc(h)).append("</th>");
    }
    return b.append("</tr></thead>\n<tbody>\n");
  }

  private static void row(StringBuilder b, String head, String... cells) {
    b.append("<tr><th scope=\"row\">").append(Html.esc(head)).append("</th>");
    for (String c : cells) {
      b.append("<td>").append(Html.esc(c)).append("</td>");
    }
    b.append("</tr>\n");
  }

  private static String count(long n) {
    return Long.toString(n);
  }

  private static String num(Distribution d, Function<Distribution, Double> stat) {
    return ProductionWords.num(stat.apply(d));
  }

  private static String window(ProductionSummary s, String ledger) {
    StringBuilder b = new StringBuilder("<dl class=\"run\">\n");
    fact(b, "Ledger", ledger);
    fact(b, "From", ProductionWords.instant(s.since()));
    fact(b, "To", ProductionWords.instant(s.until()));
    fact(b, "Tenant", s.tenantOrNull() == null ? "all" : s.tenantOrNull());
    fact(b, "Model", s.modelOrNull() == null ? "all" : s.modelOrNull());
    fact(b, "Per-user TPS threshold", ProductionWords.num(s.curve().thresholdTokensPerSecond()) + " tokens/s");
    return b.append("</dl>\n").toString();
  }

  private static void fact(StringBuilder b, String name, String value) {
    b.append("<dt>").append(Html.esc(name)).append("</dt><dd>").append(Html.esc(value)).append("</dd>\n");
  }
}
