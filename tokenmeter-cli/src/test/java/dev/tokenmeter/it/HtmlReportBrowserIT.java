package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.HeadlessChromium;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * report.html in headless Chromium, opened from file:// with the network unused: it renders with no
 * console errors, loads nothing from elsewhere, every chart exists and plots exactly summary.json's
 * numbers, and the headline names the right stage. The results folder is a real one, written by
 * {@code tokenmeter simulate} in-process (virtual time: a second).
 *
 * <p>Needs headless Chromium ({@link HeadlessChromium}: skipped without it, unless required).
 */
@Timeout(120)
class HtmlReportBrowserIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  private static HeadlessChromium browser;
  private static ChromeDriver driver;
  private static JsonNode summary;

  @BeforeAll
  static void renderAndOpen() throws Exception {
    HeadlessChromium.assumeInstalled();
    Path dir = tmp.resolve("run");
    // 1, 64 and 256 users of the default model: per-user TPS halves by 256, so the run has a knee.
    Cli.Result r = Cli.run("simulate", "--concurrency", "256,1,64", "--duration", "8s", "--warmup", "2s",
        "--cooldown", "1s", "--input-tokens", "256", "--output-tokens", "uniform:64,256", "--out", dir.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    summary = JSON.readTree(dir.resolve("summary.json").toFile());
    browser = HeadlessChromium.open(dir.resolve("report.html"));
    driver = browser.driver();
  }

  @AfterAll
  static void close() {
    if (browser != null) {
      browser.close();
    }
  }

  private static Object js(String script) {
    return browser.js(script);
  }

  private static List<Double> plotted(String id, int dataset) {
    return browser.plotted(id, dataset);
  }

  /** summary.json's stages in load order (the curve's order). */
  private static List<JsonNode> byLoad() {
    List<JsonNode> stages = new ArrayList<>();
    summary.get("stages").forEach(stages::add);
    stages.sort((a, b) -> Integer.compare(a.at("/load/concurrency").asInt(), b.at("/load/concurrency").asInt()));
    return stages;
  }

  @Test
  void rendersWithNoConsoleErrorsAndLoadsNothingFromElsewhere() {
    assertThat(browser.errors()).as("SEVERE console entries").isEmpty();
    assertThat(browser.resourcesLoaded()).isZero();
    assertThat(js("return typeof Chart")).isEqualTo("function");
  }

  @Test
  void everyChartExistsAndIsDrawn() {
    List<String> ids = new ArrayList<>(List.of("chart-degradation", "chart-ttft", "chart-tpot", "chart-cdf-ttft",
        "chart-cdf-itl", "chart-lengths-input", "chart-lengths-output", "chart-health",
        "chart-energy")); // simulate's power model fills stages[].gpu: the run's energy chart
    for (int i = 0; i < summary.get("stages").size(); i++) {
      ids.add("chart-stage-" + i + "-tps");
      ids.add("chart-stage-" + i + "-latency");
    }
    for (String id : ids) {
      assertThat(js("return !!window.tmCharts['" + id + "']")).as(id).isEqualTo(true);
      assertThat(driver.findElement(By.id(id)).getSize().getWidth()).as(id).isPositive();
    }
    assertThat(((Number) js("return Object.keys(window.tmCharts).length")).intValue()).isEqualTo(ids.size());
  }

  @Test
  void degradationCurvePlotsTheFilesNumbersInLoadOrder() {
    List<JsonNode> stages = byLoad();
    @SuppressWarnings("unchecked")
    List<String> labels = (List<String>) js("return window.tmCharts['chart-degradation'].data.labels");
    assertThat(labels).containsExactly("c=1", "c=64", "c=256");
    List<Double> p50 = plotted("chart-degradation", 0);
    List<Double> p10 = plotted("chart-degradation", 1);
    List<Double> aggregate = plotted("chart-degradation", 2);
    List<Double> ttftP99 = plotted("chart-ttft", 2);
    List<Double> tpotP50 = plotted("chart-tpot", 0);
    for (int i = 0; i < stages.size(); i++) {
      JsonNode s = stages.get(i);
      assertThat(p50.get(i)).isEqualTo(s.at("/metrics/decode_tps/p50").asDouble());
      assertThat(p10.get(i)).isEqualTo(s.at("/metrics/decode_tps/p10").asDouble());
      assertThat(aggregate.get(i)).isEqualTo(s.at("/throughput/output_tokens_per_s").asDouble());
      assertThat(ttftP99.get(i)).isEqualTo(s.at("/metrics/ttft_ms/p99").asDouble());
      assertThat(tpotP50.get(i)).isEqualTo(s.at("/metrics/tpot_ms/p50").asDouble());
    }
  }

  @Test
  void stageSeriesAndCdfsPlotTheFilesNumbers() {
    for (int i = 0; i < summary.get("stages").size(); i++) {
      JsonNode s = summary.get("stages").get(i);
      JsonNode tokens = s.at("/time_series/output_tokens");
      List<Double> tps = plotted("chart-stage-" + i + "-tps", 0);
      assertThat(tps).hasSize(tokens.size());
      for (int k = 0; k < tokens.size(); k++) {
        assertThat(tps.get(k)).isEqualTo(tokens.get(k).asDouble() / s.at("/time_series/interval_s").asDouble());
      }
      // Mean TTFT is drawn as points too: at low load most seconds have no first token, and a line
      // through isolated seconds alone would draw nothing.
      assertThat(((Number) js("return window.tmCharts['chart-stage-" + i + "-latency'].data.datasets[0].pointRadius"))
          .doubleValue()).isPositive();
      List<Double> failed = plotted("chart-stage-" + i + "-latency", 1);
      assertThat(failed.stream().mapToDouble(Double::doubleValue).sum())
          .isEqualTo(sum(s.at("/time_series/failed")));
      // The TTFT CDF passes through (p99, 0.99) of the file.
      @SuppressWarnings("unchecked")
      List<Map<String, Number>> cdf = (List<Map<String, Number>>) js(
          "return window.tmCharts['chart-cdf-ttft'].data.datasets[" + i + "].data");
      double atP99 = cdf.stream().filter(p -> p.get("y").doubleValue() == 0.99).findFirst().orElseThrow()
          .get("x").doubleValue();
      assertThat(atP99).isEqualTo(s.at("/metrics/ttft_ms/p99").asDouble());
    }
  }

  private static double sum(JsonNode array) {
    double total = 0;
    for (JsonNode v : array) {
      total += v.asDouble();
    }
    return total;
  }

  @Test
  void headlineNamesTheLastLoadBeforeTheKnee() {
    // The knee by hand: first stage in load order below 30 tokens/s or below half of c=1's p50.
    List<JsonNode> stages = byLoad();
    double base = stages.get(0).at("/metrics/decode_tps/p50").asDouble();
    int knee = -1;
    for (int i = 1; i < stages.size() && knee < 0; i++) {
      double v = stages.get(i).at("/metrics/decode_tps/p50").asDouble();
      if (v < 30 || v < 0.5 * base) {
        knee = i;
      }
    }
    JsonNode answer = stages.get(knee < 0 ? stages.size() - 1 : knee - 1);
    String text = driver.findElement(By.id("answer")).getText();
    assertThat(text).startsWith("At " + answer.at("/load/concurrency").asInt() + " concurrent users each user would see ");
    assertThat(driver.findElement(By.id("simulated")).getText()).startsWith("Simulated, not measured.")
        .contains("Held out by source, the model's median error is 8.1% for TPOT/ITL (p90 37.9%)");
    if (knee > 0) {
      assertThat(driver.findElement(By.cssSelector(".knee")).getText())
          .contains("at " + stages.get(knee).at("/load/concurrency").asInt() + " users");
    }
  }

  /**
   * A bench run with {@code --server-metrics} against the engine-backed simulator (4 users, 2
   * sequences at most: it queues): each stage shows the server panel, its chart plots summary.json's
   * scrapes at their own times from the stage start, and the TTFT decomposition is in words.
   */
  @Test
  void theServerPanelPlotsTheScrapesOnTheStagesTimeAxis() throws Exception {
    dev.tokenmeter.simulator.EngineTiming timing = new dev.tokenmeter.simulator.EngineTiming(
        dev.tokenmeter.simulator.engine.EngineConfig.of(dev.tokenmeter.simulator.engine.Presets.model("llama-3.1-8b"),
            dev.tokenmeter.simulator.engine.Presets.gpu("h100-sxm")).withLimits(2, 8192),
        dev.tokenmeter.core.time.Ticker.system());
    Path dir = tmp.resolve("bench");
    Cli.Result r;
    try (dev.tokenmeter.testkit.SimFixture sim = dev.tokenmeter.testkit.SimFixture.start(
        dev.tokenmeter.testkit.SimFixture.config(0, 0).timing(timing).maxModelLen(timing.maxModelLen()))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "4", "--duration", "2s", "--warmup", "1s",
          "--cooldown", "0s", "--input-tokens", "64", "--output-tokens", "30", "--extra-body", "{\"ignore_eos\":true}",
          "--server-metrics", "--server-metrics-interval", "250ms", "--out", dir.toString());
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    JsonNode server = JSON.readTree(dir.resolve("summary.json").toFile()).at("/stages/0/server");
    try (HeadlessChromium page = HeadlessChromium.open(dir.resolve("report.html"))) {
      assertThat(page.errors()).as("SEVERE console entries").isEmpty();
      String id = "chart-stage-0-server";
      assertThat(page.hasChart(id)).isTrue();
      assertThat(page.driver().findElement(By.id(id)).getSize().getWidth()).isPositive();
      assertThat(page.label(id, 0)).isEqualTo("Requests waiting (queue depth)");
      assertThat(page.plotted(id, 0)).isEqualTo(numbers(server.at("/time_series/waiting"), 1));
      assertThat(page.plotted(id, 1)).isEqualTo(numbers(server.at("/time_series/running"), 1));
      assertThat(page.plotted(id, 2)).isEqualTo(numbers(server.at("/time_series/kv_cache_usage"), 100));
      assertThat(page.plottedX(id, 0)).isEqualTo(numbers(server.at("/time_series/offset_s"), 1));
      String panel = page.driver().findElement(By.id("server-0")).getText();
      assertThat(panel).contains("Server (vLLM, ").contains("queue depth mean")
          .containsPattern("Of \\d+ ms TTFT p50, \\d+ ms were queueing in the server \\(vLLM queue time\\)");
    }
  }

  private static List<Double> numbers(JsonNode array, double scale) {
    List<Double> out = new ArrayList<>();
    array.forEach(v -> out.add(v.isNull() ? null : v.asDouble() * scale));
    return out;
  }
}
