package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerWriter;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.HeadlessChromium;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The production report.html in headless Chromium, opened from file://: no console errors, nothing
 * loaded from elsewhere, the answer shown is production.json's, and every chart plots
 * production.json's numbers. The ledger: three tenants over the last 20 minutes at c=1, 2 and 6
 * (per-user TPS 80, 50 and 20: a knee), a few failures of two classes.
 *
 * <p>Needs headless Chromium ({@link HeadlessChromium}: skipped without it, unless required).
 */
@Timeout(120)
class ProductionReportBrowserIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  private static HeadlessChromium browser;
  private static JsonNode prod;

  @BeforeAll
  static void renderAndOpen() throws Exception {
    HeadlessChromium.assumeInstalled();
    Path ledger = tmp.resolve("ledger.db");
    Instant now = Instant.now();
    Ledger l = Ledgers.open(ledger.toString(), Map.of());
    String[] tenants = {"acme", "beta", "gamma"};
    int[] inFlight = {0, 1, 5};
    double[] tps = {80, 50, 20};
    try (LedgerWriter w = l.writer()) {
      for (int i = 0; i < 90; i++) {
        int bin = i % 3;
        ErrorClass error = i % 17 == 0 ? ErrorClass.HTTP_5XX : i % 29 == 0 ? ErrorClass.TIMEOUT_FIRST_TOKEN : null;
        w.accept(request("r" + i, now.minusSeconds(1200 - 13L * i), tenants[i % 4 == 0 ? 2 : i % 2], inFlight[bin],
            tps[bin] + i % 10, error));
      }
    }
    Path out = tmp.resolve("report");
    Cli.Result r = Cli.run("proxy", "report", "--ledger", ledger.toString(), "--since", "30m", "--out", out.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    prod = JSON.readTree(out.resolve("production.json").toFile());
    browser = HeadlessChromium.open(out.resolve("report.html"));
  }

  private static MeteredRequest request(String id, Instant at, String tenant, int inFlight, double tps, ErrorClass error) {
    boolean ok = error == null;
    return MeteredRequestBuilder.chat(tenant, "llama", "vllm").id(id).startedAt(at.toEpochMilli())
        .failed(error, ok ? 200 : 503).error(ok ? null : "failed").finishReason("stop").tokens(120, ok ? 64 : -1, 0, 0)
        .source(TokenCountSource.USAGE).times(1000, ok ? 50_000_000L + inFlight * 20_000_000L : -1,
            ok ? 1e9 / tps : Double.NaN, ok ? 2_000_000_000L : -1)
        .chunks(64).inFlightAtStart(inFlight).cost(0.002, "USD").build();
  }

  @AfterAll
  static void close() {
    if (browser != null) {
      browser.close();
    }
  }

  @Test
  void rendersWithNoConsoleErrorsAndLoadsNothing() {
    assertThat(browser.errors()).as("SEVERE console entries").isEmpty();
    assertThat(browser.resourcesLoaded()).isZero();
    for (String id : List.of("chart-degradation", "chart-ttft", "chart-tpot", "chart-tenants", "chart-errors")) {
      assertThat(browser.hasChart(id)).as(id).isTrue();
      assertThat(browser.driver().findElement(By.id(id)).getSize().getWidth()).as(id).isPositive();
    }
  }

  @Test
  void theAnswerShownIsProductionJsons() {
    assertThat(browser.driver().findElement(By.id("answer")).getText()).isEqualTo(prod.at("/answer/0").asText())
        .contains("the proxy metered 90 requests");
    assertThat(browser.driver().findElement(By.id("knee")).getText()).isEqualTo(prod.at("/answer/1").asText())
        .startsWith("Knee: per-user TPS p10 falls below 30 tokens/s between c=2");
    assertThat(browser.driver().findElement(By.id("latency")).getText()).isEqualTo(prod.at("/answer/2").asText());
    // The curve table: one row per bin with production.json's request counts
    List<String> rows = new ArrayList<>();
    browser.driver().findElements(By.cssSelector("#table-curve tbody tr")).forEach(tr -> rows.add(tr.getText()));
    assertThat(rows).hasSize(prod.get("curve").size());
    for (int i = 0; i < rows.size(); i++) {
      JsonNode bin = prod.get("curve").get(i);
      assertThat(rows.get(i)).startsWith(bin.get("label").asText() + " " + bin.get("requests").asLong() + " "
          + bin.get("errors").asLong() + " ");
    }
  }

  @Test
  void chartsPlotProductionJsonsNumbers() {
    List<Double> p50 = new ArrayList<>();
    List<Double> p10 = new ArrayList<>();
    List<Double> ttftP99 = new ArrayList<>();
    List<Double> tpotP50 = new ArrayList<>();
    List<Double> requests = new ArrayList<>();
    for (JsonNode bin : prod.get("curve")) {
      p50.add(bin.at("/decode_tps/p50").asDouble());
      p10.add(bin.at("/decode_tps/p10").asDouble());
      ttftP99.add(bin.at("/ttft_ms/p99").asDouble());
      tpotP50.add(bin.at("/tpot_ms/p50").asDouble());
      requests.add(bin.get("requests").asDouble());
    }
    assertThat(p10).hasSize(3);
    assertThat(browser.plotted("chart-degradation", 0)).isEqualTo(p50);
    assertThat(browser.plotted("chart-degradation", 1)).isEqualTo(p10);
    assertThat(browser.plotted("chart-degradation", 3)).isEqualTo(requests);
    assertThat(browser.plotted("chart-ttft", 2)).isEqualTo(ttftP99);
    assertThat(browser.plotted("chart-tpot", 0)).isEqualTo(tpotP50);
    List<Double> output = new ArrayList<>();
    prod.get("tenants").forEach(t -> output.add(t.get("output_tokens").asDouble()));
    assertThat(browser.plotted("chart-tenants", 1)).isEqualTo(output);
    // errors over time: one stacked dataset per class, then the requests line
    List<String> classes = new ArrayList<>();
    prod.get("errors_by_class").fieldNames().forEachRemaining(classes::add);
    assertThat(classes).containsExactly("http_5xx", "timeout_first_token");
    for (int k = 0; k < classes.size(); k++) {
      assertThat(browser.label("chart-errors", k)).isEqualTo(classes.get(k));
      double plotted = browser.plotted("chart-errors", k).stream().mapToDouble(Double::doubleValue).sum();
      assertThat(plotted).isEqualTo(prod.at("/errors_by_class/" + classes.get(k)).asDouble());
    }
    List<Double> started = new ArrayList<>();
    prod.at("/errors_over_time/buckets").forEach(b -> started.add(b.get("requests").asDouble()));
    assertThat(browser.plotted("chart-errors", classes.size())).isEqualTo(started);
  }
}
