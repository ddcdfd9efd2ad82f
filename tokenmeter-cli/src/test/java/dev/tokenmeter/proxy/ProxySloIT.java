package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.governance.LiveSlo;
import dev.tokenmeter.governance.SloScope;
import dev.tokenmeter.governance.SloStatus;
import dev.tokenmeter.simulator.Fault;
import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.telemetry.PrometheusProxyMetrics;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.WebhookReceiver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Live SLOs through the proxy in front of the simulator: a slow or failing upstream burns an SLO's
 * budget, and its alerts reach the log, a local webhook receiver and /metrics, once per transition.
 */
@Timeout(60)
class ProxySloIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CHAT =
      "{\"model\":\"tokenmeter-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,\"max_tokens\":4}";

  private final List<JsonNode> posted = new ArrayList<>();
  private final ByteArrayOutputStream log = new ByteArrayOutputStream();
  /** Added to the system ticker: the test jumps hours ahead. */
  private final AtomicLong skipNanos = new AtomicLong();
  private WebhookReceiver receiver;

  private URI receiver() throws Exception {
    receiver = WebhookReceiver.start(0);
    return receiver.url();
  }

  @AfterEach
  void stop() {
    if (receiver != null) {
      receiver.close();
    }
  }

  private static List<LiveSlo> slos(SloScope scope, String spec) {
    return Slo.parse(spec).objectives().stream().map(o -> LiveSlo.of(o, scope)).toList();
  }

  private List<String> await(int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (receiver.bodies.size() < n && System.nanoTime() < deadline) {
      Thread.sleep(10); // a socket test: waiting for the webhook's thread
    }
    posted.clear();
    for (String b : receiver.bodies) {
      posted.add(JSON.readTree(b));
    }
    return posted.stream().map(p -> p.get("slo").asText() + " " + p.get("severity").asText() + " "
        + p.get("state").asText()).toList();
  }

  private static String scrape(PrometheusProxyMetrics m) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    m.scrape(out);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aSlowUpstreamPagesOnTheTtftSloAndResolvesWhenTheWindowsEmpty() throws Exception {
    List<LiveSlo> slos = Stream.of(slos(SloScope.ALL, "ttft.p99<=40ms,errors<=1%"),
        slos(new SloScope("tokenmeter-*", null, "acme"), "tps.p10>=30")).flatMap(List::stream).toList();
    PrometheusProxyMetrics metrics = PrometheusProxyMetrics.create();
    Ticker ticker = () -> System.nanoTime() + skipNanos.get();
    try (SimFixture sim = SimFixture.start(SimFixture.config(80, 1)); // TTFT 80 ms, 1000 tok/s
        Alerts alerts = new Alerts(receiver(), new PrintStream(log, true, StandardCharsets.UTF_8));
        LiveSlos wired = LiveSlos.of(slos, metrics, ticker, InstantSource.system(), alerts, 50);
        ProxyServer proxy = ProxyServer.start(config(sim.baseUrl()), List.of(wired.bookOrNull()), metrics, null,
            TokenCounters.none(), ticker, InstantSource.system())) {
      for (int i = 0; i < 3; i++) {
        assertThat(RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", CHAT, "x-tenant: acme").status()).isEqualTo(200);
      }
      assertThat(await(2)).containsExactly("ttft.p99<=40ms page firing", "ttft.p99<=40ms ticket firing");
      JsonNode page = posted.get(0);
      assertThat(page.get("kind").asText()).isEqualTo("slo");
      assertThat(page.get("budget").asDouble()).isEqualTo(0.01, org.assertj.core.data.Offset.offset(1e-12));
      assertThat(page.get("burn_rates").get("5m").asDouble()).as("every request over 40 ms: 1 / 0.01").isEqualTo(100.0);
      assertThat(page.get("message").asText()).startsWith("SLO alert firing (page): ttft.p99<=40ms: burn rate 100 over 1h");
      assertThat(log.toString(StandardCharsets.UTF_8)).contains("tokenmeter proxy: SLO alert firing (page): ttft.p99<=40ms");
      String text = scrape(metrics);
      assertThat(text).contains("tokenmeter_proxy_slo_alert{severity=\"page\",slo=\"ttft.p99<=40ms\"} 1.0",
          "tokenmeter_proxy_slo_alert{severity=\"page\",slo=\"errors<=1%\"} 0.0",
          "tokenmeter_proxy_slo_burn_rate{slo=\"ttft.p99<=40ms\",window=\"1h\"} 100.0",
          "tokenmeter_proxy_slo_burn_rate{slo=\"errors<=1%\",window=\"5m\"} 0.0",
          "tokenmeter_proxy_slo_burn_rate{slo=\"tps.p10>=30 model=tokenmeter-* tenant=acme\",window=\"5m\"} 0.0");
      // The alerts fire from the second request on; the third's record may still be on its way.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (wired.bookOrNull().snapshot().get(0).requests().get("5m") < 3 && System.nanoTime() < deadline) {
        Thread.sleep(10); // a socket test: waiting for the record thread
      }
      List<SloStatus> status = wired.bookOrNull().snapshot();
      assertThat(status).extracting(SloStatus::state)
          .containsExactly(SloStatus.State.PAGE, SloStatus.State.OK, SloStatus.State.OK);
      assertThat(status.get(0).requests().get("5m")).isEqualTo(3);
      // The dashboard's SLO panel shows the same states (docs/PROXY.md, "Dashboard").
      JsonNode feed = JSON.readTree(RawHttp.get(proxy.baseUrl(), "/dashboard/data?window=5m").body());
      assertThat(feed.at("/slo/configured").asBoolean()).isTrue();
      assertThat(feed.at("/slo/objectives")).extracting(o -> o.get("status").asText())
          .containsExactly("page", "ok", "ok");
      assertThat(feed.at("/slo/objectives/0/detail").asText()).contains("5m: SLI 0.00% of 3 requests, burn 100.00");

      skipNanos.set(TimeUnit.HOURS.toNanos(7)); // every window but 3d empties: both resolve at the next evaluation
      assertThat(await(4)).containsExactly("ttft.p99<=40ms page firing", "ttft.p99<=40ms ticket firing",
          "ttft.p99<=40ms page resolved", "ttft.p99<=40ms ticket resolved");
      Thread.sleep(200); // four more evaluations
      assertThat(receiver.bodies).as("once per transition").hasSize(4);
      assertThat(scrape(metrics)).contains("tokenmeter_proxy_slo_alert{severity=\"page\",slo=\"ttft.p99<=40ms\"} 0.0");
    }
  }

  @Test
  void aFailingUpstreamBurnsTheErrorBudgetOfItsTenantOnly() throws Exception {
    List<LiveSlo> slos = new ArrayList<>(slos(new SloScope(null, null, "acme"), "errors<=5%"));
    slos.addAll(slos(new SloScope(null, null, "beta"), "errors<=5%"));
    PrometheusProxyMetrics metrics = PrometheusProxyMetrics.create();
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 1).faults(Faults.none().with(Fault.HTTP_500, 1.0)));
        Alerts alerts = new Alerts(receiver(), new PrintStream(log, true, StandardCharsets.UTF_8));
        LiveSlos wired = LiveSlos.of(slos, metrics, Ticker.system(), InstantSource.system(), alerts, 50);
        ProxyServer proxy = ProxyServer.start(config(sim.baseUrl()), List.of(wired.bookOrNull()), metrics, null,
            TokenCounters.none(), Ticker.system(), InstantSource.system())) {
      assertThat(RawHttp.post(proxy.baseUrl(), "/v1/chat/completions", CHAT, "x-tenant: acme").status()).isEqualTo(500);
      assertThat(await(2)).containsExactly("errors<=5% tenant=acme page firing", "errors<=5% tenant=acme ticket firing");
      Predicate<JsonNode> beta = p -> p.get("slo").asText().contains("beta");
      assertThat(posted).noneMatch(beta);
      assertThat(posted.get(0).get("scope").get("tenant").asText()).isEqualTo("acme");
      assertThat(posted.get(0).get("burn_rates").get("3d").asDouble()).isEqualTo(20.0); // 1 / 0.05
    }
  }

  private static ProxyConfig config(String upstream) {
    return ProxyConfig.of(0, Upstream.parse(Upstream.DEFAULT_NAME, upstream, null))
        .withTenants(new Tenants(List.of(), "x-tenant", false));
  }
}
