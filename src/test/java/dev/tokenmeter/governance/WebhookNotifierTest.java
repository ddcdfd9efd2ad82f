package dev.tokenmeter.governance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The webhook against a local receiver on 127.0.0.1 that fails before it accepts. */
@Timeout(30)
class WebhookNotifierTest {
  private static final Notice NOTICE = new Notice(new Budget("acme", 1000, null, Period.DAY, true), 80, 812,
      Instant.parse("2026-11-25T10:00:00Z"), Instant.parse("2026-11-26T00:00:00Z"));

  private final List<String> bodies = new CopyOnWriteArrayList<>();
  private final AtomicInteger calls = new AtomicInteger();
  private HttpServer receiver;

  /** A receiver that answers 503 to the first {@code failures} posts, then 204. */
  private URI receiver(int failures) throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/hook", x -> {
      bodies.add(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      x.sendResponseHeaders(calls.incrementAndGet() <= failures ? 503 : 204, -1);
      x.close();
    });
    receiver.start();
    return URI.create("http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook");
  }

  @AfterEach
  void stop() {
    if (receiver != null) {
      receiver.stop(0);
    }
  }

  @Test
  void aNoticeIsPostedAsJsonAndRetriedUntilTheReceiverTakesIt() throws Exception {
    List<String> log = new CopyOnWriteArrayList<>();
    try (WebhookNotifier w = new WebhookNotifier(receiver(2), 4, 10, log::add)) {
      long t0 = System.nanoTime();
      w.accept(NOTICE);
      w.close(10_000);
      assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(30_000_000L); // waited 10 + 20 ms
      assertThat(w.delivered()).isEqualTo(1);
      assertThat(w.failed()).isZero();
    }
    assertThat(calls.get()).isEqualTo(3);
    assertThat(log).isEmpty();
    JsonNode j = new ObjectMapper().readTree(bodies.get(2));
    assertThat(j.get("kind").asText()).isEqualTo("budget");
    assertThat(j.get("tenant").asText()).isEqualTo("acme");
    assertThat(j.get("percent").asInt()).isEqualTo(80);
    assertThat(j.get("used").asDouble()).isEqualTo(812);
    assertThat(j.get("limit").asDouble()).isEqualTo(1000);
    assertThat(j.get("unit").asText()).isEqualTo("tokens");
    assertThat(j.get("period").asText()).isEqualTo("day");
    assertThat(j.get("enforce").asBoolean()).isTrue();
    assertThat(j.get("resets_at").asText()).isEqualTo("2026-11-26T00:00:00Z");
    assertThat(j.get("message").asText()).contains("reached 80%");
  }

  @Test
  void aReceiverThatNeverTakesItIsGivenUpOnWithOneLogLine() throws Exception {
    List<String> log = new CopyOnWriteArrayList<>();
    try (WebhookNotifier w = new WebhookNotifier(receiver(100), 3, 1, log::add)) {
      w.accept(NOTICE);
      w.close(10_000);
      assertThat(w.failed()).isEqualTo(1);
      assertThat(w.delivered()).isZero();
    }
    assertThat(calls.get()).isEqualTo(3);
    assertThat(log).singleElement().asString()
        .contains("gave up on the 80% notice of tenant 'acme' after 3 attempts (status 503)");
  }

  @Test
  void aDriftNoticeIsPostedWithItsFindings() throws Exception {
    DriftReport.Lengths in = new DriftReport.Lengths(true, true, 512, 1200, new DriftStats.Ks(1, 1e-9),
        new DriftStats.Psi(18.4, new double[] {512}), "512");
    DriftReport report = new DriftReport(Instant.parse("2026-11-25T10:00:00Z"), 400, List.of(in), false);
    try (WebhookNotifier w = new WebhookNotifier(receiver(0), 2, 1, s -> {})) {
      w.accept(new DriftNotice(report, java.time.Duration.ofMinutes(15), false));
      w.close(10_000);
      assertThat(w.delivered()).isEqualTo(1);
    }
    JsonNode j = new ObjectMapper().readTree(bodies.get(0));
    assertThat(j.get("kind").asText()).isEqualTo("drift");
    assertThat(j.get("cleared").asBoolean()).isFalse();
    assertThat(j.get("dimensions").get(0).asText()).isEqualTo("input_tokens");
    assertThat(j.get("requests").asLong()).isEqualTo(400);
    assertThat(j.get("window_s").asLong()).isEqualTo(900);
    assertThat(j.get("findings").get(0).get("sentence").asText()).startsWith("prompts are 2.3x longer than the 512 tokens");
    assertThat(j.get("message").asText()).startsWith("drift notice: prompts are 2.3x longer");
  }
}
