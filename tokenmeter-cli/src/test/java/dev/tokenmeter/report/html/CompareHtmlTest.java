package dev.tokenmeter.report.html;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.report.CompareJsonWriter;
import dev.tokenmeter.report.CompareReport;
import dev.tokenmeter.report.RunFolder;
import dev.tokenmeter.testkit.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * compare.html of two simulate runs on different GPUs whose sweeps differ (A: c=8,1; B: c=1,8,32):
 * the overlay layout, the embedded compare.json, the tables, the links, the command.
 */
class CompareHtmlTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final StageComparison.Settings S = StageComparison.Settings.DEFAULT;

  @TempDir static Path tmp;
  private static List<RunFolder> runs;
  private static List<RunComparison> comparisons;

  @BeforeAll
  static void simulate() throws Exception {
    String[] plan = {"--input-tokens", "100", "--output-tokens", "32", "--duration", "8s", "--warmup", "1s",
        "--cooldown", "0s"};
    Cli.simulate(tmp.resolve("a"), plan, "--gpu", "h100-sxm", "--concurrency", "8,1");
    Cli.simulate(tmp.resolve("b"), plan, "--gpu", "a100-80gb", "--concurrency", "1,8,32");
    runs = List.of(RunFolder.read(tmp.resolve("a")), RunFolder.read(tmp.resolve("b")));
    comparisons = List.of(RunComparison.of(runs.get(0).stages(), runs.get(1).stages(), S));
  }

  @Test
  void pointsAreTheMatchedLoadsInLoadOrder() {
    List<CompareData.Point> points = CompareData.points(runs, comparisons);
    assertThat(points).extracting(CompareData.Point::label).containsExactly("c=1", "c=8");
    assertThat(points).extracting(CompareData.Point::load).containsExactly(1.0, 8.0);
    assertThat(CompareData.loadAxis(points)).isEqualTo("concurrent users");
    // B's stages in B's order: c=1 is comparison stage 0, c=8 stage 1.
    assertThat(points.get(1).entries()).containsExactly(new CompareData.Entry("A", 0, 1, "baseline"),
        new CompareData.Entry("B", 0, 1, "run"));
  }

  @Test
  void dataEmbedsCompareJsonAsWritten() throws Exception {
    Path file = tmp.resolve("compare.json");
    CompareJsonWriter.write(file, runs, comparisons, S);
    JsonNode written = JSON.readTree(file.toFile());
    JsonNode data = CompareData.of(runs, comparisons, S);
    assertThat(data.get("compare")).isEqualTo(written);
    assertThat(data.get("runs")).hasSize(2);
    assertThat(data.at("/points/0/entries/1/side").asText()).isEqualTo("run");
    // compare.json 1.1: the load and the 103-point CDFs, whose 50% point is the percentiles' p50.
    assertThat(written.get("compare_version").asText()).isEqualTo("1.2");
    JsonNode stage = written.at("/comparisons/0/stages/1");
    assertThat(stage.at("/load/model").asText()).isEqualTo("closed");
    assertThat(stage.at("/load/concurrency").asInt()).isEqualTo(8);
    JsonNode cdf = stage.at("/curves/run/cdf/tpot_ms");
    assertThat(cdf).hasSize(103);
    assertThat(cdf.get(50).get(1).asDouble()).isEqualTo(0.5);
    assertThat(cdf.get(50).get(0).asDouble()).isEqualTo(stage.at("/curves/run/percentiles/tpot_ms/4").asDouble());
  }

  @Test
  void tablesShowTheConsoleCellsWithLinkedMetrics() {
    String tables = CompareHtml.tables(comparisons, S);
    StageComparison c8 = comparisons.get(0).stages().get(1);
    assertThat(tables).contains("<caption>" + Html.esc("B vs A, " + CompareReport.stageTitle(c8, "B")) + "</caption>");
    for (StageComparison.Row r : c8.rows()) {
      String[] cells = CompareReport.cells(r, "B", S);
      StringBuilder tds = new StringBuilder();
      for (int i = 1; i < cells.length; i++) {
        tds.append("<td>").append(Html.esc(cells[i])).append("</td>");
      }
      assertThat(tables).contains("<a href=\"#" + MetricDoc.of(r.quantity()).id() + "\">"
          + Html.esc(r.quantity().title()) + "</a> <span class=\"unit\">(" + Html.esc(r.quantity().unit())
          + ")</span></th>" + tds + "</tr>");
    }
    // An A100 is slower than an H100 at every load: TPOT p50 is worse and says so.
    assertThat(tables).contains("<tr class=\"worse\"><th scope=\"row\"><a href=\"#def-tpot\">TPOT p50</a>");
    assertThat(tables).contains("Only in B (not compared): #2 c=32.");
  }

  @Test
  void pageIsSelfContainedAndEveryLinkHasItsDefinition() throws Exception {
    String page = CompareHtml.render(runs, comparisons, S, "../docs/METRICS.md");
    assertThat(page).doesNotContain("{{").doesNotContainPattern("<script[^>]+src=")
        .doesNotContainPattern("<link[^>]+stylesheet").contains("Chart.js v4");
    assertThat(page).contains("<p class=\"answer\" id=\"verdict-B\">B is slower than A: ");
    Matcher links = Pattern.compile("href=\"#(def-[a-z-]+)\"").matcher(page);
    int n = 0;
    while (links.find()) {
      assertThat(page).as(links.group(1)).contains("<dt id=\"" + links.group(1) + "\">");
      n++;
    }
    assertThat(n).isGreaterThan(26); // 13 rows per table, 2 tables, and the captions
    assertThat(page).contains("<a href=\"../docs/METRICS.md#comparing-runs-tokenmeter-compare\">");
    assertThat(page).contains("<canvas id=\"chart-cdf-ttft-1\"").contains("<canvas id=\"chart-cdf-tpot-0\"");
  }

  @Test
  void repeatsOfALoadAreToldApart() throws Exception {
    String[] plan = {"--concurrency", "2", "--repeat", "2", "--output-tokens", "16", "--duration", "2s",
        "--warmup", "0s", "--cooldown", "0s"};
    Cli.simulate(tmp.resolve("ra"), plan);
    Cli.simulate(tmp.resolve("rb"), plan, "--gpu", "a100-80gb");
    List<RunFolder> rs = List.of(RunFolder.read(tmp.resolve("ra")), RunFolder.read(tmp.resolve("rb")));
    List<CompareData.Point> points =
        CompareData.points(rs, List.of(RunComparison.of(rs.get(0).stages(), rs.get(1).stages(), S)));
    assertThat(points).extracting(CompareData.Point::label).containsExactly("c=2", "c=2 (2)");
    assertThat(points.get(1).entries().get(0).stage()).isEqualTo(1);
  }

  @Test
  void theCommandWritesThePageWhenAsked() throws Exception {
    Path page = tmp.resolve("out/cmp.html");
    Files.createDirectories(page.getParent());
    Cli.Result r = Cli.run("compare", tmp.resolve("a").toString(), tmp.resolve("b").toString(), "--html", page.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).contains("Comparison: " + page);
    assertThat(Files.readString(page)).contains("id=\"verdict-B\"").contains("<title>tokenmeter compare: B against A</title>");
    Cli.Result bad = Cli.run("compare", tmp.resolve("a").toString(), tmp.resolve("b").toString(), "--html",
        tmp.resolve("no/such/dir/cmp.html").toString());
    assertThat(bad.exitCode()).isEqualTo(1);
    assertThat(bad.err()).contains("cannot write").doesNotContain("Exception");
  }
}
