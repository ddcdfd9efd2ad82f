package dev.tokenmeter.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.loadgen.RequestSink;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.testkit.Exposition;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What {@link BenchMetrics} exposes for hand-built requests: every family under its GenAI name,
 * the labels of the stage, values computed from the requests by hand, the inner sink still called.
 */
class BenchMetricsTest {
  private static final long MS = 1_000_000L;
  private static final BenchMetrics.Stage STAGE = new BenchMetrics.Stage("chat", "m1", 2, "c=4", "");
  private static final Map<String, String> CHAT = Map.of("stage", "2", "load", "c=4", "gen_ai_request_model", "m1");
  private final BenchRequests requests = new BenchRequests();

  static Exposition scrape(BenchMetrics m) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    m.scrape(out);
    return Exposition.parse(out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void everyFamilyCarriesTheRequestsFiguresUnderTheStagesLabels() throws Exception {
    AtomicInteger inner = new AtomicInteger();
    try (BenchMetrics metrics = BenchMetrics.create()) {
      RequestSink sink = metrics.sink(STAGE, true, (t, m) -> inner.incrementAndGet());
      // 4 tokens in 4 chunks 20 ms apart: TTFT 100 ms, TPOT 20 ms, decode 50 tok/s, e2e 160 ms
      sink.accept(null, requests.completed(Phase.MEASURED, 12, 4, 100, 120, 140, 160));
      sink.accept(null, requests.completed(Phase.WARMUP, 8, 2, 50, 90));
      sink.accept(null, requests.refused(Phase.MEASURED));
      metrics.inFlight(STAGE, () -> 3);
      metrics.drain();
      assertThat(inner).hasValue(3);

      Exposition e = scrape(metrics);
      assertThat(e.value("gen_ai_client_token_usage_sum", with("gen_ai_token_type", "output"))).isEqualTo(6);
      assertThat(e.value("gen_ai_client_token_usage_count", with("gen_ai_token_type", "output"))).isEqualTo(2);
      assertThat(e.value("gen_ai_client_token_usage_sum", with("gen_ai_token_type", "input"))).isEqualTo(20);
      assertThat(e.value("gen_ai_client_operation_time_to_first_chunk_seconds_sum", CHAT)).isCloseTo(0.15, within(1e-9));
      assertThat(e.value("gen_ai_client_operation_time_to_first_chunk_seconds_bucket", with("le", "0.08"))).isEqualTo(1);
      // chunk gaps: 3 of 20 ms, 1 of 40 ms
      assertThat(e.value("gen_ai_client_operation_time_per_output_chunk_seconds_count", CHAT)).isEqualTo(4);
      assertThat(e.value("gen_ai_client_operation_time_per_output_chunk_seconds_bucket", with("le", "0.02"))).isEqualTo(3);
      assertThat(e.value("gen_ai_server_time_per_output_token_seconds_sum", CHAT)).isCloseTo(0.06, within(1e-9));
      assertThat(e.value("tokenmeter_bench_decode_speed_per_second_sum", CHAT)).isCloseTo(75, within(1e-9));
      assertThat(e.value("gen_ai_client_operation_duration_seconds_count", with("error_type", ""))).isEqualTo(2);
      assertThat(e.value("tokenmeter_bench_requests_total", Map.of("phase", "measured", "error_type", ""))).isEqualTo(1);
      assertThat(e.value("tokenmeter_bench_requests_total", Map.of("phase", "warmup"))).isEqualTo(1);
      assertThat(e.value("tokenmeter_bench_requests_total", Map.of("error_type", "connect"))).isEqualTo(1);
      assertThat(e.value("tokenmeter_bench_active_requests", CHAT)).isEqualTo(3);
      assertThat(e.value("tokenmeter_bench_records_dropped_total", Map.of())).isZero();
      assertThat(e.find("gen_ai_client_token_usage_count", Map.of()).get(0).labels())
          .containsEntry("gen_ai_operation_name", "chat").doesNotContainKey("lane_name");
    }
  }

  @Test
  void tokenmetersOwnCancellationsAreNeitherCountedNorTimedButTheirTokensCount() throws Exception {
    try (BenchMetrics metrics = BenchMetrics.create()) {
      RequestSink sink = metrics.sink(STAGE, true, (t, m) -> {});
      sink.accept(null, requests.completed(Phase.MEASURED, 12, 4, 100, 120, 140, 160));
      sink.accept(null, requests.cancelled(Phase.MEASURED, 100, 120, 140)); // cut by the stage's end
      sink.accept(null, requests.cancelled(Phase.COOLDOWN, 90));
      sink.accept(null, requests.refused(Phase.MEASURED));
      metrics.drain();
      Exposition e = scrape(metrics);
      assertThat(e.find("tokenmeter_bench_requests_total", Map.of("error_type", "cancelled"))).isEmpty();
      assertThat(e.find("gen_ai_client_operation_duration_seconds_count", Map.of("error_type", "cancelled"))).isEmpty();
      assertThat(e.find("tokenmeter_bench_requests_total", Map.of()).stream().mapToDouble(Exposition.Sample::value).sum())
          .as("the completed and the failed one, as summary.json counts them").isEqualTo(2);
      assertThat(e.value("tokenmeter_bench_requests_total", Map.of("error_type", "connect"))).isEqualTo(1);
      // the 3 + 1 tokens that arrived before the cancels count, as in summary.json's output tokens/s
      assertThat(e.value("gen_ai_client_token_usage_sum", with("gen_ai_token_type", "output"))).isEqualTo(8);
    }
  }

  @Test
  void unstreamedRequestsHaveNoChunkMetrics() throws Exception {
    try (BenchMetrics metrics = BenchMetrics.create()) {
      metrics.sink(STAGE, false, (t, m) -> {}).accept(null, requests.completed(Phase.MEASURED, 5, 2, 10, 30));
      metrics.drain();
      Exposition e = scrape(metrics);
      assertThat(e.find("gen_ai_client_operation_time_to_first_chunk_seconds_count", Map.of())).isEmpty();
      assertThat(e.find("gen_ai_client_operation_time_per_output_chunk_seconds_count", Map.of())).isEmpty();
      assertThat(e.value("gen_ai_client_token_usage_sum", with("gen_ai_token_type", "output"))).isEqualTo(2);
    }
  }

  @Test
  void theEndpointServesTheExpositionAndCountsScrapes() throws Exception {
    try (BenchMetrics metrics = BenchMetrics.create(); ScrapeServer server = metrics.serve("127.0.0.1", 0)) {
      metrics.sink(STAGE, true, (t, m) -> {}).accept(null, requests.completed(Phase.MEASURED, 5, 2, 10, 30));
      metrics.drain();
      assertThat(server.url()).isEqualTo("http://127.0.0.1:" + server.port() + "/metrics");
      HttpClient http = HttpClient.newHttpClient();
      // the scrape is sent 500 ms from now, after the wait below has begun
      var response = CompletableFuture.supplyAsync(() -> null,
              CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS))
          .thenCompose(x -> http.sendAsync(HttpRequest.newBuilder(URI.create(server.url())).build(),
              HttpResponse.BodyHandlers.ofString()));
      boolean seen = server.awaitNextScrape(10_000 * MS);
      HttpResponse<String> r = response.get(10, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
      assertThat(Exposition.parse(r.body()).value("gen_ai_client_token_usage_sum", with("gen_ai_token_type", "output")))
          .isEqualTo(2);
      assertThat(seen).isTrue();
      assertThat(server.scrapes()).isEqualTo(1);
      assertThat(server.awaitNextScrape(1)).as("no scrape after").isFalse();
      HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(server.url()))
          .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
    }
  }

  @Test
  void aTakenPortIsOneLineNamingTheFlag() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"));
        BenchMetrics metrics = BenchMetrics.create()) {
      assertThatThrownBy(() -> metrics.serve("127.0.0.1", taken.getLocalPort()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("--metrics-port " + taken.getLocalPort() + ": cannot listen on 127.0.0.1:")
          .hasMessageEndingWith("choose another port, or 0 for any free one");
    }
  }

  private static Map<String, String> with(String label, String value) {
    java.util.HashMap<String, String> m = new java.util.HashMap<>(CHAT);
    m.put(label, value);
    return m;
  }
}
