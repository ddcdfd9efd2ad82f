package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.HeadlessChromium;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * compare.html in headless Chromium: two simulate runs that differ by a known amount (an A100
 * against an H100: every token slower by the memory-bandwidth ratio, about 1.6 at one user) at
 * c=1 and c=16, compared with {@code --html} and {@code --json}. The page renders with no console
 * errors, loads nothing, and every overlaid dataset plots exactly compare.json's numbers.
 */
@Timeout(120)
class CompareHtmlBrowserIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  private static HeadlessChromium browser;
  private static JsonNode cmp;

  @BeforeAll
  static void compareAndOpen() throws Exception {
    HeadlessChromium.assumeInstalled();
    for (String gpu : List.of("h100-sxm", "a100-80gb")) {
      Cli.Result r = Cli.run("simulate", "-q", "--gpu", gpu, "--concurrency", "16,1", "--duration", "8s",
          "--warmup", "1s", "--cooldown", "0s", "--input-tokens", "128", "--output-tokens", "uniform:32,96",
          "--out", tmp.resolve(gpu).toString());
      assertThat(r.exitCode()).as(r.both()).isZero();
    }
    Cli.Result r = Cli.run("compare", tmp.resolve("h100-sxm").toString(), tmp.resolve("a100-80gb").toString(),
        "--json", tmp.resolve("compare.json").toString(), "--html", tmp.resolve("compare.html").toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    cmp = JSON.readTree(tmp.resolve("compare.json").toFile());
    browser = HeadlessChromium.open(tmp.resolve("compare.html"));
  }

  @AfterAll
  static void close() {
    if (browser != null) {
      browser.close();
    }
  }

  /** compare.json's matched stages in load order (B ran c=16 first). */
  private static List<JsonNode> byLoad() {
    List<JsonNode> stages = new ArrayList<>();
    cmp.at("/comparisons/0/stages").forEach(stages::add);
    stages.sort((a, b) -> Integer.compare(a.at("/load/concurrency").asInt(), b.at("/load/concurrency").asInt()));
    return stages;
  }

  private static double row(JsonNode stage, String key, String side) {
    for (JsonNode r : stage.get("rows")) {
      if (r.get("key").asText().equals(key)) {
        return r.get(side).asDouble();
      }
    }
    throw new AssertionError("no row " + key);
  }

  @Test
  void rendersWithNoConsoleErrorsAndLoadsNothing() {
    assertThat(browser.errors()).as("SEVERE console entries").isEmpty();
    assertThat(browser.resourcesLoaded()).isZero();
    for (String id : List.of("chart-degradation", "chart-ttft", "chart-tpot", "chart-cdf-ttft-0", "chart-cdf-tpot-0",
        "chart-cdf-ttft-1", "chart-cdf-tpot-1")) {
      assertThat(browser.hasChart(id)).as(id).isTrue();
      assertThat(browser.driver().findElement(By.id(id)).getSize().getWidth()).as(id).isPositive();
    }
    assertThat(((Number) browser.js("return Object.keys(window.tmCharts).length")).intValue()).isEqualTo(7);
  }

  @Test
  void curvesOfBothRunsPlotCompareJsonsRows() {
    @SuppressWarnings("unchecked")
    List<String> labels = (List<String>) browser.js("return window.tmCharts['chart-degradation'].data.labels");
    assertThat(labels).containsExactly("c=1", "c=16");
    List<JsonNode> stages = byLoad();
    String[] sides = {"baseline", "run"};
    for (int run = 0; run < 2; run++) {
      List<Double> p50 = browser.plotted("chart-degradation", 3 * run);
      List<Double> p10 = browser.plotted("chart-degradation", 3 * run + 1);
      List<Double> aggregate = browser.plotted("chart-degradation", 3 * run + 2);
      List<Double> ttftP99 = browser.plotted("chart-ttft", 2 * run + 1);
      List<Double> tpotP50 = browser.plotted("chart-tpot", 2 * run);
      assertThat(browser.label("chart-degradation", 3 * run)).startsWith(run == 0 ? "A " : "B ");
      for (int i = 0; i < stages.size(); i++) {
        JsonNode s = stages.get(i);
        assertThat(p50.get(i)).isEqualTo(row(s, "decode_tps_p50", sides[run]));
        assertThat(p10.get(i)).isEqualTo(row(s, "decode_tps_p10", sides[run]));
        assertThat(aggregate.get(i)).isEqualTo(row(s, "output_tps", sides[run]));
        assertThat(ttftP99.get(i)).isEqualTo(row(s, "ttft_p99", sides[run]));
        assertThat(tpotP50.get(i)).isEqualTo(row(s, "tpot_p50", sides[run]));
      }
    }
    // The known difference: at one user every A100 token takes the roofline's step-time ratio longer
    // (10.51 / 7.31 ms = 1.44 with the fitted defaults, whose 2.33 ms fixed part both GPUs pay;
    // CompareCommandTest pins it to the roofline), so B's TPOT p50 line lies well above A's.
    double ratio = browser.plotted("chart-tpot", 2).get(0) / browser.plotted("chart-tpot", 0).get(0);
    assertThat(ratio).isBetween(1.38, 1.48);
  }

  @Test
  void cdfsOverlayBothRunsFromCompareJson() {
    List<JsonNode> stages = byLoad();
    for (int k = 0; k < stages.size(); k++) {
      for (String metric : List.of("ttft", "tpot")) {
        String id = "chart-cdf-" + metric + "-" + k;
        for (int run = 0; run < 2; run++) {
          JsonNode cdf = stages.get(k).at("/curves/" + (run == 0 ? "baseline" : "run") + "/cdf/" + metric + "_ms");
          List<Double> x = new ArrayList<>();
          List<Double> y = new ArrayList<>();
          cdf.forEach(p -> {
            if (p.get(0).asDouble() > 0) {
              x.add(p.get(0).asDouble());
              y.add(p.get(1).asDouble());
            }
          });
          assertThat(x).as(id).hasSizeGreaterThan(100);
          assertThat(browser.plottedX(id, run)).as(id).isEqualTo(x);
          assertThat(browser.plotted(id, run)).as(id).isEqualTo(y);
        }
      }
    }
  }

  @Test
  void verdictAndTablesSayBIsSlower() {
    String verdict = browser.driver().findElement(By.id("verdict-B")).getText();
    assertThat(verdict).startsWith("B is slower than A: ").contains("(significant, p<0.001) at c=");
    // The TPOT p50 row of the c=16 table shows compare.json's own words.
    JsonNode c16 = byLoad().get(1);
    String summary = null;
    for (JsonNode r : c16.get("rows")) {
      summary = r.get("key").asText().equals("tpot_p50") ? r.get("summary").asText() : summary;
    }
    int index = cmp.at("/comparisons/0/stages").get(0).equals(c16) ? 0 : 1;
    String cell = browser.driver().findElement(By.xpath("//table[@id='table-B-" + index
        + "']//tr[th[starts-with(normalize-space(.), 'TPOT p50')]]/td[5]")).getText();
    assertThat(summary).isEqualTo("B slower, significant (p<0.001)");
    assertThat(cell).isEqualTo(summary);
  }
}
