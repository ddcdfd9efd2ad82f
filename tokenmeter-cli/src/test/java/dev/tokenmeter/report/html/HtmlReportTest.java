package dev.tokenmeter.report.html;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.metrics.SampleStages;
import dev.tokenmeter.report.RunSummary;
import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.SummaryJsonReader;
import dev.tokenmeter.report.SummaryJsonWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The page from a written summary.json: the data blob's numbers, tables, links, the template. */
class HtmlReportTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path tmp;

  private static RunSummary sample() {
    return new RunSummary(
        new RunSummary.Tool("tokenmeter", "test"),
        Instant.parse("2025-03-01T10:00:00Z"),
        Instant.parse("2025-03-01T10:00:17.250Z"),
        new RunSummary.Target("http://127.0.0.1:8000", "chat", "llama-3.1-8b"),
        List.of("bench"),
        42,
        new RunSummary.Settings(new RunSummary.Timeouts(Duration.ofSeconds(30), null, null), Map.of()),
        RunSummary.Completion.complete(),
        List.of(SampleStages.closed(42), SampleStages.openInterrupted(43)));
  }

  /** Writes the sample's summary.json into a folder and returns the folder. */
  private Path folder() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("run"));
    SummaryJsonWriter.write(sample(), dir.resolve("summary.json"));
    return dir;
  }

  private static JsonNode dataBlob(String page) throws Exception {
    Matcher m = Pattern.compile("<script type=\"application/json\" id=\"tm-data\">(.*?)</script>", Pattern.DOTALL)
        .matcher(page);
    assertThat(m.find()).isTrue();
    return JSON.readTree(m.group(1));
  }

  @Test
  void dataBlobCarriesTheFilesNumbers() throws Exception {
    Path dir = folder();
    Path page = HtmlReport.write(dir);
    assertThat(page).isEqualTo(dir.resolve("report.html"));
    JsonNode file = JSON.readTree(dir.resolve("summary.json").toFile());
    JsonNode data = dataBlob(Files.readString(page));
    assertThat(data.get("simulated").asBoolean()).isFalse();
    // Mixed closed and open stages: no common load axis, run order kept.
    assertThat(data.get("loadAxis").asText()).isEqualTo("stage");
    for (int i = 0; i < 2; i++) {
      JsonNode stage = file.get("stages").get(i);
      JsonNode curve = data.get("curve").get(i);
      assertThat(curve.get("label").asText()).isEqualTo(stage.get("label").asText());
      assertThat(curve.get("aggTps").asDouble()).isEqualTo(stage.at("/throughput/output_tokens_per_s").asDouble());
      assertThat(curve.get("userP50").asDouble()).isEqualTo(stage.at("/metrics/decode_tps/p50").asDouble());
      assertThat(curve.get("userP10").asDouble()).isEqualTo(stage.at("/metrics/decode_tps/p10").asDouble());
      // The headline TTFT: from the schedule in the open stage, from the send in the closed one.
      String ttft = "/metrics/" + ("open".equals(stage.at("/load/model").asText()) ? "ttft_from_scheduled_ms" : "ttft_ms");
      assertThat(stage.get("headline_latency_from").asText()).isEqualTo(i == 0 ? "sent" : "scheduled");
      assertThat(curve.at("/ttft/p99").asDouble()).isEqualTo(stage.at(ttft + "/p99").asDouble());
      assertThat(curve.at("/tpot/p90").asDouble()).isEqualTo(stage.at("/metrics/tpot_ms/p90").asDouble());
      JsonNode series = data.get("stages").get(i).get("series");
      JsonNode tokens = stage.at("/time_series/output_tokens");
      assertThat(series.get("tps").size()).isEqualTo(tokens.size());
      for (int s = 0; s < tokens.size(); s++) {
        assertThat(series.get("tps").get(s).asDouble()).isEqualTo(tokens.get(s).asDouble()); // interval 1 s
        assertThat(series.get("errors").get(s).asLong()).isEqualTo(stage.at("/time_series/failed").get(s).asLong());
      }
      JsonNode phases = stage.at("/time_series/phases");
      assertThat(series.get("phases")).hasSize(phases.size());
      for (int k = 0; k < phases.size(); k++) {
        assertThat(series.get("phases").get(k).get(0).asText()).isEqualTo(phases.get(k).get("phase").asText());
        assertThat(series.get("phases").get(k).get(2).asDouble()).isEqualTo(phases.get(k).get("end_s").asDouble());
      }
      // The CDF at 99% is the file's p99, at 50% its p50.
      JsonNode cdf = data.get("stages").get(i).at("/cdf/ttft");
      assertThat(cdf.size()).isEqualTo(103);
      assertThat(point(cdf, 0.99)).isEqualTo(stage.at(ttft + "/p99").asDouble());
      assertThat(point(cdf, 0.5)).isEqualTo(stage.at(ttft + "/p50").asDouble());
    }
    // No NaN token and no raw '<' inside the blob (it sits in a script element).
    String page2 = Files.readString(page);
    String blob = page2.substring(page2.indexOf("id=\"tm-data\">"), page2.indexOf("</script>", page2.indexOf("id=\"tm-data\">")));
    assertThat(blob.substring(blob.indexOf('>') + 1)).doesNotContain("NaN").doesNotContain("<");
  }

  @Test
  void latencyTableLeadsWithTheUsersWaitAndNamesBothItls() throws Exception {
    Path dir = folder();
    JsonNode file = JSON.readTree(dir.resolve("summary.json").toFile());
    String page = Files.readString(HtmlReport.write(dir));
    String table = page.substring(page.indexOf("<table id=\"table-latency\""));
    table = table.substring(0, table.indexOf("</table>"));
    assertThat(table).contains("from the schedule in an open loop", ">TTFT from send p99</a>", ">ITL per token p50</a>",
        ">ITL per chunk p99</a>", ">No TPOT</a>", ">E2E from send p99</a>");
    // Stage 2 is open: its TTFT p99 column is the from-schedule p99, the send-based one beside it.
    String open = table.substring(table.indexOf("<tr><th scope=\"row\">" + file.at("/stages/1/label").asText()));
    String[] cells = open.substring(0, open.indexOf("</tr>")).split("<td>");
    assertThat(cells[3]).startsWith(Tables.num(file.at("/stages/1/metrics/ttft_from_scheduled_ms/p99").asDouble()) + "<");
    assertThat(cells[4]).startsWith(Tables.num(file.at("/stages/1/metrics/ttft_ms/p99").asDouble()) + "<");
    assertThat(cells[7]).startsWith(file.at("/stages/1/requests/tpot_undefined").asText() + "<");
    String closed = table.substring(table.indexOf("<tr><th scope=\"row\">" + file.at("/stages/0/label").asText()));
    assertThat(closed.split("<td>")[3]).startsWith(Tables.num(file.at("/stages/0/metrics/ttft_ms/p99").asDouble()) + "<");
  }

  private static double point(JsonNode cdf, double fraction) {
    for (JsonNode p : cdf) {
      if (p.get(1).asDouble() == fraction) {
        return p.get(0).asDouble();
      }
    }
    throw new AssertionError("no CDF point at " + fraction);
  }

  @Test
  void pageIsSelfContained() throws Exception {
    String page = HtmlReport.render(SummaryJsonReader.read(folder().resolve("summary.json")), null);
    assertThat(page).contains("Chart.js v4").doesNotContain("sourceMappingURL").doesNotContain("{{");
    // Nothing loaded from elsewhere: no src= or stylesheet links.
    assertThat(page).doesNotContainPattern("<script[^>]+src=").doesNotContainPattern("<link[^>]+stylesheet");
    assertThat(page).contains("<canvas id=\"chart-stage-0-tps\"").contains("<canvas id=\"chart-stage-1-latency\"");
  }

  @Test
  void tablesShowTheNumbersWithLinkedHeadersAndUnits() throws Exception {
    SavedSummary s = SummaryJsonReader.read(folder().resolve("summary.json"));
    String tables = Tables.all(s, "../docs/METRICS.md");
    SavedSummary.Stage st = s.stages().get(0);
    assertThat(tables).contains("<caption>Throughput and requests per stage (measurement window only)</caption>")
        .contains("<a href=\"#def-ttft\">TTFT p99</a> <span class=\"unit\">(ms)</span>")
        .contains("<td>" + Tables.num(st.metrics().get("ttft_ms").p99()) + "</td>")
        .contains("<td>" + Tables.num(st.outputTokensPerSecond()) + "</td>")
        .contains("<dt id=\"def-ttft\">TTFT (ms)</dt>")
        .contains("<a href=\"../docs/METRICS.md#per-request-requestmetrics\">docs/METRICS.md § Per request</a>");
    // Every header link has its definition.
    Matcher m = Pattern.compile("href=\"#(def-[a-z-]+)\"").matcher(tables);
    while (m.find()) {
      assertThat(tables).contains("<dt id=\"" + m.group(1) + "\"");
    }
    assertThat(Tables.num(1234.5)).isEqualTo("1,235");
    assertThat(Tables.num(41.25)).isEqualTo("41.3");
    assertThat(Tables.num(0.1234)).isEqualTo("0.123");
    assertThat(Tables.num(Double.NaN)).isEqualTo("–");
  }

  @Test
  void everyMetricLinksToAHeadingOfMetricsMd() throws Exception {
    Set<String> anchors = new HashSet<>();
    for (String line : Files.readAllLines(Path.of("docs/METRICS.md"))) {
      if (line.startsWith("#")) {
        anchors.add(slug(line.replaceFirst("^#+\\s*", "")));
      }
    }
    for (MetricDoc m : MetricDoc.values()) {
      assertThat(anchors).as(m.name()).contains(m.anchor());
    }
    assertThat(Page.metricsDocHref(Path.of("").toAbsolutePath().resolve("results/x")))
        .isEqualTo("../../docs/METRICS.md");
    assertThat(Page.metricsDocHref(tmp)).isNull();
  }

  /** GitHub's heading anchor: lower case, punctuation other than - and _ dropped, spaces to -. */
  private static String slug(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
  }

  @Test
  void lengthsAreBinnedIntoAtMost40Bars() {
    ObjectNode o = JSON.createObjectNode();
    Histogram h = new Histogram(3);
    h.recordValueWithCount(512, 7);
    PageData.lengths(o, h);
    assertThat(o.toString()).isEqualTo("{\"labels\":[\"512\"],\"counts\":[7]}");
    Histogram wide = new Histogram(3);
    wide.recordValue(100);
    wide.recordValue(139); // width (39 + 40) / 40 = 1: one bar per value
    wide.recordValue(101);
    ObjectNode w = JSON.createObjectNode();
    PageData.lengths(w, wide);
    assertThat(w.get("labels")).hasSize(40);
    assertThat(w.get("counts").get(0).asLong()).isEqualTo(1);
    assertThat(w.get("counts").get(1).asLong()).isEqualTo(1);
    assertThat(w.get("counts").get(39).asLong()).isEqualTo(1);
    Histogram wider = new Histogram(3);
    wider.recordValue(0);
    wider.recordValue(100); // width (100 + 40) / 40 = 3: 34 bars, 0–2 ... 99–101
    ObjectNode x = JSON.createObjectNode();
    PageData.lengths(x, wider);
    assertThat(x.get("labels")).hasSize(34);
    assertThat(x.get("labels").get(0).asText()).isEqualTo("0–2");
    assertThat(x.get("counts").get(33).asLong()).isEqualTo(1);
    PageData.lengths(JSON.createObjectNode(), null);
  }

  @Test
  void cdfIsInReportUnits() {
    Histogram h = new Histogram(3);
    h.recordValue(2_000_000); // 2 ms in ns
    var out = JSON.createArrayNode();
    PageData.cdf(out, h, Metric.TTFT);
    assertThat(out.get(0).get(0).asDouble()).isEqualTo(h.getValueAtPercentile(0) / 1e6);
    assertThat(out.get(102).get(1).asDouble()).isEqualTo(1.0);
  }

  @Test
  void templateIsFilledInOnePass() {
    assertThat(Page.fill("a {{x}} b {{y}}", Map.of("x", "{{y}}", "y", "$1\\")))
        .isEqualTo("a {{y}} b $1\\");
    assertThatIllegalStateException().isThrownBy(() -> Page.fill("{{nope}}", Map.of()))
        .withMessageContaining("nope");
  }

  @Test
  void escapesText() {
    assertThat(Html.esc("<a href=\"x\">'&'</a>")).isEqualTo("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    assertThat(Html.esc(null)).isEmpty();
  }

  @Test
  void writeQuietlyReportsAMissingSummaryOnOneLine() {
    var bytes = new java.io.ByteArrayOutputStream();
    HtmlReport.writeQuietly(tmp.resolve("empty"), new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
    String err = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(err).startsWith("tokenmeter: could not write ").contains("tokenmeter report");
    assertThat(err.lines()).hasSize(1);
  }
}
