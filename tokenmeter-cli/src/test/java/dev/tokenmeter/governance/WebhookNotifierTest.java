package dev.tokenmeter.governance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.WebhookReceiver;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The webhook against a local receiver on 127.0.0.1 that fails before it accepts. */
@Timeout(30)
class WebhookNotifierTest {
  private static final Notice NOTICE = new Notice(new Budget("acme", 1000, null, Period.DAY, true), 80, 812,
      Instant.parse("2026-11-25T10:00:00Z"), Instant.parse("2026-11-26T00:00:00Z"));

  private final List<WebhookReceiver> receivers = new ArrayList<>();
  private List<String> bodies;

  /** A receiver that answers 503 to the first {@code failures} posts, then 204. */
  private URI receiver(int failures) throws Exception {
    WebhookReceiver r = WebhookReceiver.start(failures);
    receivers.add(r);
    bodies = r.bodies;
    return r.url();
  }

  private int calls() {
    return receivers.get(receivers.size() - 1).calls();
  }

  @AfterEach
  void stop() {
    receivers.forEach(WebhookReceiver::close);
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
    assertThat(calls()).isEqualTo(3);
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
    assertThat(calls()).isEqualTo(3);
    assertThat(log).singleElement().asString()
        .contains("gave up on the 80% notice of tenant 'acme' after 3 attempts (status 503)");
  }

  /**
   * The receiver is down (connection refused) for the first two attempts and comes back on its
   * port before the third: the notice arrives once, after waits of 10 and 20 ms (the schedule).
   */
  @Test
  void aReceiverThatComesBackGetsTheNoticeOnceAfterTheStatedWaits() throws Exception {
    int port = dev.tokenmeter.testkit.SimFixture.closedPort();
    List<Long> waits = new CopyOnWriteArrayList<>();
    List<String> log = new CopyOnWriteArrayList<>();
    WebhookNotifier.Sleeper comesBack = millis -> {
      waits.add(millis);
      if (waits.size() == 2) {
        try {
          receivers.add(WebhookReceiver.start(0, port));
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
      return true;
    };
    URI url = URI.create("http://127.0.0.1:" + port + "/hook");
    try (WebhookNotifier w = new WebhookNotifier(url, 5, 10, 2_000, comesBack, log::add)) {
      w.accept(NOTICE);
      w.close(10_000);
      assertThat(w.delivered()).isEqualTo(1);
      assertThat(w.failed()).isZero();
    }
    assertThat(waits).containsExactly(10L, 20L);
    assertThat(calls()).as("delivered once").isEqualTo(1);
    assertThat(log).isEmpty();
  }

  /** A receiver that accepts but never answers: each post times out, is retried on schedule, then given up. */
  @Test
  void aPostWithNoAnswerTimesOutAndIsRetriedOnSchedule() throws Exception {
    List<Long> waits = new CopyOnWriteArrayList<>();
    List<String> log = new CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
    List<java.net.Socket> held = new CopyOnWriteArrayList<>();
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      Thread t = new Thread(() -> {
        while (!silent.isClosed()) {
          try {
            held.add(silent.accept()); // read nothing, answer nothing
            accepted.incrementAndGet();
          } catch (java.io.IOException e) {
            return;
          }
        }
      });
      t.setDaemon(true);
      t.start();
      URI url = URI.create("http://127.0.0.1:" + silent.getLocalPort() + "/hook");
      WebhookNotifier.Sleeper recording = millis -> waits.add(millis);
      long t0 = System.nanoTime();
      try (WebhookNotifier w = new WebhookNotifier(url, 3, 10, 200, recording, log::add)) {
        w.accept(NOTICE);
        w.close(10_000);
        assertThat(w.failed()).isEqualTo(1);
        assertThat(w.delivered()).isZero();
      }
      assertThat(System.nanoTime() - t0).as("three 200 ms timeouts").isGreaterThanOrEqualTo(600_000_000L);
    } finally {
      for (java.net.Socket s : held) {
        s.close();
      }
    }
    assertThat(waits).containsExactly(10L, 20L);
    assertThat(accepted.get()).as("one connection per attempt").isEqualTo(3);
    assertThat(log).singleElement().asString().contains("after 3 attempts (HttpTimeoutException");
  }

  @Test
  void anSloAlertIsPostedWithItsScopeAndBurnRatesAndRetriedLikeANotice() throws Exception {
    LiveSlo slo = LiveSlo.of(dev.tokenmeter.core.slo.Slo.parse("tps.p10>=30").objectives().get(0),
        new SloScope("llama*", null, "acme"));
    double[] burn = {20, 15, 12.5, Double.NaN, 1.5}; // 5m, 30m, 1h, 6h, 3d
    SloAlert alert = new SloAlert(slo, Severity.PAGE, SloAlert.Transition.FIRING, burn, Instant.parse("2026-11-25T10:00:00Z"));
    burn[0] = 0; // the alert keeps its own copy
    List<String> log = new CopyOnWriteArrayList<>();
    try (WebhookNotifier w = new WebhookNotifier(receiver(1), 2, 1, log::add)) {
      w.accept(alert);
      w.close(10_000);
      assertThat(w.delivered()).isEqualTo(1);
    }
    JsonNode j = new ObjectMapper().readTree(bodies.get(1));
    assertThat(j.get("kind").asText()).isEqualTo("slo");
    assertThat(j.get("slo").asText()).isEqualTo("tps.p10>=30 model=llama* tenant=acme");
    assertThat(j.get("objective").asText()).isEqualTo("tps.p10 >= 30 tok/s");
    assertThat(j.get("scope").get("model").asText()).isEqualTo("llama*");
    assertThat(j.get("scope").get("upstream").isNull()).isTrue();
    assertThat(j.get("severity").asText()).isEqualTo("page");
    assertThat(j.get("state").asText()).isEqualTo("firing");
    assertThat(j.get("budget").asDouble()).isEqualTo(0.1);
    assertThat(j.get("burn_rates").get("5m").asDouble()).isEqualTo(20);
    assertThat(j.get("burn_rates").get("6h").isNull()).as("no request in 6h").isTrue();
    assertThat(j.get("at").asText()).isEqualTo("2026-11-25T10:00:00Z");
    assertThat(j.get("message").asText()).isEqualTo("SLO alert firing (page): tps.p10>=30 model=llama* tenant=acme: burn rate"
        + " 12.5 over 1h and 20 over 5m (threshold 14.4), - over 6h and 15 over 30m (threshold 6); error budget 10% of"
        + " requests (share of completed requests with TPS >= 30 tok/s)");

    try (WebhookNotifier w = new WebhookNotifier(receiver(100), 1, 1, log::add)) {
      w.accept(new SloAlert(slo, Severity.TICKET, SloAlert.Transition.RESOLVED, burn, Instant.EPOCH));
      w.close(10_000);
    }
    assertThat(log).singleElement().asString()
        .contains("gave up on the resolved ticket alert of SLO 'tps.p10>=30 model=llama* tenant=acme' after 1 attempts");
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
