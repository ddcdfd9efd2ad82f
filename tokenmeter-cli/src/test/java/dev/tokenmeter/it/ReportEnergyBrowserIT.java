package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.HeadlessChromium;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * report.html's GPU power and energy section, in headless Chromium, for a {@code simulate} sweep
 * (the power model fills {@code stages[].gpu}): the chart against the load plots summary.json's
 * power and joules per output token, and the sentence compares the last stage with the first.
 */
@Timeout(120)
class ReportEnergyBrowserIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  private static HeadlessChromium browser;
  private static JsonNode summary;
  private static String html;

  @BeforeAll
  static void simulateAndOpen() throws Exception {
    HeadlessChromium.assumeInstalled();
    Path dir = tmp.resolve("run");
    Cli.Result r = Cli.run("simulate", "-q", "--concurrency", "1,16", "--duration", "3s", "--warmup", "1s",
        "--cooldown", "0s", "--input-tokens", "128", "--output-tokens", "64", "--power-price", "0.12",
        "--out", dir.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    summary = JSON.readTree(dir.resolve("summary.json").toFile());
    html = Files.readString(dir.resolve("report.html"));
    browser = HeadlessChromium.open(dir.resolve("report.html"));
  }

  @AfterAll
  static void close() {
    if (browser != null) {
      browser.close();
    }
  }

  private static int dataset(String id, String prefix) {
    Number i = (Number) browser.js("return window.tmCharts['" + id + "'].data.datasets.findIndex(d => d.label.startsWith('"
        + prefix + "'))");
    assertThat(i.intValue()).as(id + ": " + prefix).isNotNegative();
    return i.intValue();
  }

  private static List<Double> fromSummary(String field) {
    List<Double> out = new ArrayList<>();
    summary.get("stages").forEach(s -> out.add(s.at("/gpu/" + field).asDouble()));
    return out;
  }

  @Test
  void rendersWithNoConsoleErrors() {
    assertThat(browser.errors()).as("SEVERE console entries").isEmpty();
  }

  @Test
  void theEnergyChartPlotsSummaryJsonsPowerAndJoulesPerToken() {
    List<Double> perToken = fromSummary("joules_per_output_token");
    assertThat(perToken).hasSize(2).allMatch(j -> j > 0);
    assertThat(perToken.get(1)).as("16 users share the weights' reads: fewer joules per token").isLessThan(perToken.get(0));
    List<Double> plotted = browser.plotted("chart-energy", dataset("chart-energy", "Energy per output token"));
    for (int i = 0; i < 2; i++) {
      assertThat(plotted.get(i)).isCloseTo(perToken.get(i), within(1e-6));
    }
    List<Double> power = browser.plotted("chart-energy", dataset("chart-energy", "Mean power"));
    assertThat(power.get(1)).isCloseTo(fromSummary("power_mean_w").get(1), within(1e-6));
  }

  @Test
  void theSentenceComparesTheLastStageWithTheFirst() {
    assertThat(html).containsPattern("id=\"energy-words\">At 16 users the GPUs drew \\d+ W, [0-9.]+ J per output token,"
        + " \\d+% less than at 1 user\\.");
    assertThat(html).contains("GPUs (model, 1): ");
  }
}
