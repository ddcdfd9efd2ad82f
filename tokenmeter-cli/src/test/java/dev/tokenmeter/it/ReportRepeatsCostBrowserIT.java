package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.CostReport;
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
import org.openqa.selenium.WebElement;

/**
 * report.html of {@code simulate --repeat 3 --vary-seed} with token and GPU prices, in headless
 * Chromium: the curves have one point per planned stage (not per repeat) at the mean over its
 * repeats with the interval as a band, and the repeats and cost tables show summary.json's numbers.
 */
@Timeout(120)
class ReportRepeatsCostBrowserIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  private static HeadlessChromium browser;
  private static JsonNode summary;

  @BeforeAll
  static void simulateAndOpen() throws Exception {
    HeadlessChromium.assumeInstalled();
    Path dir = tmp.resolve("run");
    Cli.Result r = Cli.run("simulate", "-q", "--concurrency", "1,16", "--repeat", "3", "--vary-seed", "--duration",
        "3s", "--warmup", "1s", "--cooldown", "0s", "--input-tokens", "128", "--output-tokens", "uniform:32,96",
        "--price-in", "0.15", "--price-out", "0.6", "--gpu-cost", "2.5", "--traffic", "1M req/day",
        "--out", dir.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    summary = JSON.readTree(dir.resolve("summary.json").toFile());
    browser = HeadlessChromium.open(dir.resolve("report.html"));
  }

  @AfterAll
  static void close() {
    if (browser != null) {
      browser.close();
    }
  }

  /** The index of the dataset of chart {@code id} whose label starts with {@code prefix}. */
  private static int dataset(String id, String prefix) {
    Number i = (Number) browser.js("return window.tmCharts['" + id + "'].data.datasets.findIndex(d => d.label.startsWith('"
        + prefix + "'))");
    assertThat(i.intValue()).as(id + ": " + prefix).isNotNegative();
    return i.intValue();
  }

  private static List<Double> plotted(String id, String prefix) {
    return browser.plotted(id, dataset(id, prefix));
  }

  private static List<Double> repeats(String metric, String field) {
    List<Double> out = new ArrayList<>();
    summary.at("/repeats/groups").forEach(g -> out.add(g.at("/metrics/" + metric + "/" + field).asDouble()));
    return out;
  }

  @Test
  void rendersWithNoConsoleErrors() {
    assertThat(browser.errors()).as("SEVERE console entries").isEmpty();
    assertThat(browser.resourcesLoaded()).isZero();
  }

  @Test
  void curvesPlotTheMeanOverRepeatsWithItsInterval() {
    @SuppressWarnings("unchecked")
    List<String> labels = (List<String>) browser.js("return window.tmCharts['chart-degradation'].data.labels");
    assertThat(labels).containsExactly("c=1", "c=16"); // 6 stages, 2 loads
    String d = "chart-degradation";
    assertThat(plotted(d, "Per-user TPS p50 (")).isEqualTo(repeats("decode_tps_p50", "mean"));
    assertThat(plotted(d, "Per-user TPS p10, slowest")).isEqualTo(repeats("decode_tps_p10", "mean"));
    assertThat(plotted(d, "Aggregate output tokens/s, mean")).isEqualTo(repeats("output_tokens_per_s", "mean"));
    assertClose(plotted(d, "Per-user TPS p50 95% CI lower"), repeats("decode_tps_p50", "ci_low"));
    assertClose(plotted(d, "Per-user TPS p50 95% CI upper"), repeats("decode_tps_p50", "ci_high"));
    assertClose(plotted(d, "Aggregate output tokens/s 95% CI upper"), repeats("output_tokens_per_s", "ci_high"));
    assertThat(plotted("chart-ttft", "TTFT p99 (")).isEqualTo(repeats("ttft_p99_ms", "mean"));
    assertClose(plotted("chart-tpot", "TPOT p50 95% CI lower"), repeats("tpot_p50_ms", "ci_low"));
    // No p90 line: summary.json's repeats have p50 and p99 only.
    assertThat(((Number) browser.js("return window.tmCharts['chart-ttft'].data.datasets.length")).intValue())
        .isEqualTo(6); // p50, p99 and their bands' two edges
  }

  private static void assertClose(List<Double> actual, List<Double> expected) {
    assertThat(actual).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      assertThat(actual.get(i)).isCloseTo(expected.get(i), within(1e-9 * Math.max(1, Math.abs(expected.get(i)))));
    }
  }

  @Test
  void repeatsTableShowsMeanAndHalfWidth() {
    List<WebElement> rows = browser.driver().findElements(By.cssSelector("#table-repeats tbody tr"));
    assertThat(rows).hasSize(13);
    WebElement userTps = rows.stream().filter(r -> r.getText().startsWith("Per-user TPS p50")).findFirst().orElseThrow();
    List<WebElement> cells = userTps.findElements(By.tagName("td"));
    assertThat(cells).hasSize(2);
    for (int g = 0; g < 2; g++) {
      // "142 ± 0.971 (CV 0.275%)": the shown figures are summary.json's, to their 3 significant digits.
      String[] parts = cells.get(g).getText().replace(",", "").split(" ± | \\(CV |%\\)");
      JsonNode m = summary.at("/repeats/groups/" + g + "/metrics/decode_tps_p50");
      assertThat(Double.parseDouble(parts[0])).isCloseTo(m.get("mean").asDouble(), within(0.5));
      assertThat(Double.parseDouble(parts[1])).isCloseTo(m.get("half_width").asDouble(),
          within(0.005 * m.get("half_width").asDouble() + 0.0005));
    }
    assertThat(browser.driver().findElement(By.id("repeats-answer")).getText()).startsWith("Each load ran 3 times");
  }

  @Test
  void costTablesAndSentenceShowSummaryJsonsNumbers() {
    for (String pricing : List.of("tokens", "gpu")) {
      List<WebElement> rows = browser.driver().findElements(By.cssSelector("#table-cost-" + pricing + " tbody tr"));
      assertThat(rows).hasSize(6);
      for (int i = 0; i < 6; i++) {
        JsonNode f = summary.at("/stages/" + i + "/cost/" + pricing);
        List<WebElement> cells = rows.get(i).findElements(By.tagName("td"));
        assertThat(cells.get(0).getText()).isEqualTo(CostReport.money(f.get("per_request").asDouble()));
        assertThat(cells.get(1).getText()).isEqualTo(CostReport.money(f.get("per_1m_output_tokens").asDouble()));
        assertThat(cells.get(3).getText()).isEqualTo(CostReport.money(f.get("per_month").asDouble()));
        if (pricing.equals("gpu")) {
          assertThat(cells.get(4).getText()).isEqualTo(f.get("deployments").asText());
        }
      }
    }
    // The answer is at 16 users (fluid): the sentence quotes its repeats' GPU cost per 1M output tokens.
    List<Double> perMillion = new ArrayList<>();
    for (int i = 3; i < 6; i++) {
      perMillion.add(summary.at("/stages/" + i + "/cost/gpu/per_1m_output_tokens").asDouble());
    }
    String low = CostReport.money(perMillion.stream().min(Double::compare).orElseThrow());
    String high = CostReport.money(perMillion.stream().max(Double::compare).orElseThrow());
    String amount = low.equals(high) ? "about " + low : "between " + low + " and " + high;
    assertThat(browser.driver().findElement(By.id("cost-answer")).getText())
        .startsWith("At 16 concurrent users 1M output tokens cost " + amount + " USD of GPU time at the measured throughput");
  }
}
