package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.HeadlessChromium;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * report.html's "Code completion" section in headless Chromium, for a real {@code bench --profile
 * completion} run against the embedded server in which most requests are superseded: the sentence
 * is summary.json's {@code completion.in_words}, and every figure of the table (sent, completed,
 * superseded, cancelled after, failed, cut at stage end, the cancelled share, TTFT p50 and p99 of
 * the completed ones, what the server did on cancel) equals summary.json's; the page renders with
 * no console error.
 *
 * <p>Needs headless Chromium ({@link HeadlessChromium}: skipped without it, unless required).
 */
@Timeout(120)
class CompletionReportBrowserIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  private static HeadlessChromium browser;
  private static JsonNode completion;

  @BeforeAll
  static void runAndOpen() throws Exception {
    HeadlessChromium.assumeInstalled();
    Path dir = tmp.resolve("run");
    Cli.Result r;
    // An answer takes about 30 ms + 32 x 5 ms = 190 ms, a keystroke comes every 50 ms: all but a
    // burst's last request are superseded while streaming (CompletionIT's shape, smaller).
    try (SimFixture sim = SimFixture.start(SimFixture.config(30, 5))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--api", "completions", "--profile", "completion",
          "--concurrency", "2", "--requests", "16", "--warmup", "0s", "--cooldown", "0s", "--burst", "4",
          "--keystroke-time", "50ms", "--think-time", "50ms", "--input-tokens", "200", "--output-tokens", "32",
          "--extra-body", "{\"ignore_eos\":true}", "--out", dir.toString(), "-q");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    completion = JSON.readTree(dir.resolve("summary.json").toFile()).at("/stages/0/completion");
    assertThat(completion.isObject()).as("summary.json has the stage's completion object").isTrue();
    browser = HeadlessChromium.open(dir.resolve("report.html"));
  }

  @AfterAll
  static void close() {
    if (browser != null) {
      browser.close();
    }
  }

  @Test
  void theCodeCompletionSectionShowsSummaryJsonsFigures() {
    assertThat(browser.errors()).as("SEVERE console entries").isEmpty();
    WebElement section = browser.driver().findElement(By.id("completion-0"));
    assertThat(section.isDisplayed()).isTrue();
    assertThat(section.findElement(By.tagName("h4")).getText()).isEqualTo("Code completion");
    assertThat(section.findElement(By.className("answer-completion")).getText())
        .isEqualTo(completion.get("in_words").asText())
        .isNotBlank();
    List<String> headers = section.findElements(By.cssSelector("table.completion-counts thead th")).stream()
        .map(WebElement::getText).toList();
    assertThat(headers).containsExactly("Sent", "Completed", "Superseded", "Cancelled after", "Failed",
        "Cut at stage end", "Cancelled share", "TTFT p50 ms", "TTFT p99 ms", "Server on cancel");
    List<WebElement> rows = section.findElements(By.cssSelector("table.completion-counts tbody tr"));
    assertThat(rows).hasSize(1);
    List<String> cells = rows.get(0).findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
    assertThat(cells).hasSize(10);
    assertThat(cells.get(0)).isEqualTo(completion.get("requests_sent").asText());
    assertThat(cells.get(1)).isEqualTo(completion.get("completed").asText());
    assertThat(cells.get(2)).isEqualTo(completion.get("superseded").asText());
    assertThat(cells.get(3)).isEqualTo(completion.get("cancelled_after").asText());
    assertThat(cells.get(4)).isEqualTo(completion.get("failed").asText());
    assertThat(cells.get(5)).isEqualTo(completion.get("cut_at_stage_end").asText());
    assertThat(cells.get(6)).isEqualTo(
        String.format(Locale.ROOT, "%.0f%%", 100 * completion.get("cancelled_share").asDouble()));
    assertThat(ms(cells.get(7))).isCloseTo(completion.at("/ttft_completed_ms/p50").asDouble(),
        org.assertj.core.data.Offset.offset(1.0));
    assertThat(ms(cells.get(8))).isCloseTo(completion.at("/ttft_completed_ms/p99").asDouble(),
        org.assertj.core.data.Offset.offset(1.0));
    assertThat(cells.get(9)).isEqualTo(switch (completion.get("server_stops_on_cancel").asText()) {
      case "stopped" -> "stopped generating";
      case "kept_generating" -> "went on generating";
      default -> "not known";
    });
    // the run's shape: most requests superseded, none of them an error
    assertThat(completion.get("superseded").asLong()).isPositive();
    assertThat(completion.get("cancelled_share").asDouble()).isGreaterThan(0.3);
    assertThat(completion.get("failed").asLong()).isZero();
  }

  /** A TTFT cell: "42", "1,234" or "7.5" (the report's number format), in ms. */
  private static double ms(String cell) {
    return Double.parseDouble(cell.replace(",", ""));
  }
}
