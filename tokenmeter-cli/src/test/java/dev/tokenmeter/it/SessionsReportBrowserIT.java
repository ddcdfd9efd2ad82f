package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.HeadlessChromium;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * report.html's "Conversations" section in headless Chromium, for a real {@code bench --turns} run
 * against the embedded server: the sentence is summary.json's, the table has one row per turn with
 * its request count, and the page renders with no console error.
 *
 * <p>Needs headless Chromium ({@link HeadlessChromium}: skipped without it, unless required).
 */
@Timeout(120)
class SessionsReportBrowserIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  private static HeadlessChromium browser;
  private static JsonNode sessions;

  @BeforeAll
  static void runAndOpen() throws Exception {
    HeadlessChromium.assumeInstalled();
    Path dir = tmp.resolve("run");
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 1))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "2", "--requests", "12", "--warmup", "0s",
          "--cooldown", "0s", "--turns", "3", "--input-tokens", "30", "--output-tokens", "8",
          "--extra-body", "{\"ignore_eos\":true}", "--out", dir.toString(), "-q");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    sessions = JSON.readTree(dir.resolve("summary.json").toFile()).at("/stages/0/sessions");
    browser = HeadlessChromium.open(dir.resolve("report.html"));
  }

  @AfterAll
  static void close() {
    if (browser != null) {
      browser.close();
    }
  }

  @Test
  void theConversationsSectionShowsTheSentenceAndOneRowPerTurn() {
    assertThat(browser.errors()).as("SEVERE console entries").isEmpty();
    WebElement section = browser.driver().findElement(By.id("sessions-0"));
    assertThat(section.isDisplayed()).isTrue();
    assertThat(section.findElement(By.className("answer-sessions")).getText())
        .isEqualTo(sessions.get("in_words").asText())
        .startsWith("TTFT p50 ");
    List<WebElement> rows = section.findElements(By.cssSelector("table.by-turn tbody tr"));
    assertThat(rows).hasSize(sessions.get("by_turn").size()).hasSize(3);
    for (int k = 0; k < rows.size(); k++) {
      List<WebElement> cells = rows.get(k).findElements(By.cssSelector("th, td"));
      JsonNode turn = sessions.get("by_turn").get(k);
      assertThat(cells.get(0).getText()).isEqualTo(turn.get("turn").asText());
      assertThat(cells.get(1).getText()).isEqualTo(turn.get("requests").asText());
      assertThat(Double.parseDouble(cells.get(5).getText().replace(",", "")))
          .isCloseTo(turn.at("/prompt_tokens/mean").asDouble(), org.assertj.core.data.Percentage.withPercentage(5));
    }
  }
}
