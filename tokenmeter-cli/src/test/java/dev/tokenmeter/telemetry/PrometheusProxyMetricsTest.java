package dev.tokenmeter.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.telemetry.PrometheusProxyMetrics.Limits;
import dev.tokenmeter.testkit.Exposition;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Known requests in, the exposition parsed back, every figure computed by hand beside it. */
class PrometheusProxyMetricsTest {
  private static final double EPS = 1e-12;
  private static final Map<String, String> T1 = Map.of("tenant", "t1", "gen_ai_request_model", "m1");
  private static final long MS = 1_000_000L;

  private final PrometheusProxyMetrics metrics = PrometheusProxyMetrics.create(Limits.DEFAULT, List.of("a"));

  private static MeteredRequestBuilder chat() {
    return MeteredRequestBuilder.chat("t1", "m1", "a");
  }

  @Test
  void tokenUsageByTypeHasCountsSumsAndBuckets() {
    metrics.accept(chat().tokens(100, 10, 5, 64).build());
    metrics.accept(chat().tokens(300, 20, -1, 0).build()); // reasoning unknown: not observed
    Exposition e = scrape(metrics);
    String n = "gen_ai_client_token_usage";
    // input: 100 and 300
    assertThat(e.value(n + "_count", type("input"))).isEqualTo(2);
    assertThat(e.value(n + "_sum", type("input"))).isEqualTo(400);
    assertThat(e.value(n + "_bucket", le(type("input"), "64.0"))).isEqualTo(0);
    assertThat(e.value(n + "_bucket", le(type("input"), "256.0"))).isEqualTo(1);
    assertThat(e.value(n + "_bucket", le(type("input"), "1024.0"))).isEqualTo(2);
    assertThat(e.value(n + "_bucket", le(type("input"), "+Inf"))).isEqualTo(2);
    // output: 10 and 20
    assertThat(e.value(n + "_sum", type("output"))).isEqualTo(30);
    assertThat(e.value(n + "_bucket", le(type("output"), "4.0"))).isEqualTo(0);
    assertThat(e.value(n + "_bucket", le(type("output"), "16.0"))).isEqualTo(1);
    assertThat(e.value(n + "_bucket", le(type("output"), "64.0"))).isEqualTo(2);
    // reasoning: 5 only
    assertThat(e.value(n + "_count", type("reasoning"))).isEqualTo(1);
    assertThat(e.value(n + "_sum", type("reasoning"))).isEqualTo(5);
    assertThat(e.value(n + "_bucket", le(type("reasoning"), "4.0"))).isEqualTo(0);
    // cached: 64 and a known 0, which lands in the first bucket
    assertThat(e.value(n + "_count", type("cache_read"))).isEqualTo(2);
    assertThat(e.value(n + "_sum", type("cache_read"))).isEqualTo(64);
    assertThat(e.value(n + "_bucket", le(type("cache_read"), "1.0"))).isEqualTo(1);
    assertThat(e.value(n + "_bucket", le(type("cache_read"), "16.0"))).isEqualTo(1);
    assertThat(e.value(n + "_bucket", le(type("cache_read"), "64.0"))).isEqualTo(2);
    assertThat(e.find(n + "_count", Map.of("gen_ai_operation_name", "chat", "upstream", "a"))).hasSize(4);
  }

  @Test
  void latenciesInSecondsWithTheConventionsBuckets() {
    metrics.accept(chat().times(500_000, 250 * MS, 20e6, 1500 * MS).itl(15 * MS, 40 * MS, 90 * MS).build());
    metrics.accept(chat().times(1_000_000, 80 * MS, 4e6, 600 * MS).itl(3 * MS, 9 * MS, 12 * MS).build());
    Exposition e = scrape(metrics);
    String ttft = "gen_ai_server_time_to_first_token_seconds";
    assertThat(e.value(ttft + "_count", T1)).isEqualTo(2);
    assertThat(e.value(ttft + "_sum", T1)).isCloseTo(0.33, within(EPS));
    assertThat(e.value(ttft + "_bucket", le(T1, "0.08"))).isEqualTo(1); // upper bounds are inclusive
    assertThat(e.value(ttft + "_bucket", le(T1, "0.1"))).isEqualTo(1);
    assertThat(e.value(ttft + "_bucket", le(T1, "0.25"))).isEqualTo(2);
    String tpot = "gen_ai_server_time_per_output_token_seconds";
    assertThat(e.value(tpot + "_sum", T1)).isCloseTo(0.024, within(EPS));
    assertThat(e.value(tpot + "_bucket", le(T1, "0.0025"))).isEqualTo(0);
    assertThat(e.value(tpot + "_bucket", le(T1, "0.005"))).isEqualTo(1);
    assertThat(e.value(tpot + "_bucket", le(T1, "0.01"))).isEqualTo(1);
    assertThat(e.value(tpot + "_bucket", le(T1, "0.025"))).isEqualTo(2);
    String op = "gen_ai_client_operation_duration_seconds";
    assertThat(e.value(op + "_sum", T1)).isCloseTo(2.1, within(EPS));
    assertThat(e.value(op + "_bucket", le(T1, "0.64"))).isEqualTo(1);
    assertThat(e.value(op + "_bucket", le(T1, "1.28"))).isEqualTo(1);
    assertThat(e.value(op + "_bucket", le(T1, "2.56"))).isEqualTo(2);
    assertThat(e.value(op + "_count", Map.of("error_type", ""))).isEqualTo(2);
    // as served: the proxy's own 0.5 and 1 ms added to the upstream's E2E
    String server = "gen_ai_server_request_duration_seconds";
    assertThat(e.value(server + "_sum", T1)).isCloseTo(1.5005 + 0.601, within(EPS));
    assertThat(e.value(server + "_bucket", le(T1, "0.64"))).isEqualTo(1);
    String overhead = "tokenmeter_proxy_request_overhead_seconds";
    assertThat(e.value(overhead + "_sum", Map.of("upstream", "a"))).isCloseTo(0.0015, within(EPS));
    assertThat(e.value(overhead + "_bucket", le(Map.of("upstream", "a"), "5.0E-4"))).isEqualTo(1);
    assertThat(e.value(overhead + "_bucket", le(Map.of("upstream", "a"), "0.001"))).isEqualTo(2);
    // decode speed 1/TPOT: 50 and 250 tokens/s
    String speed = "tokenmeter_proxy_decode_speed_per_second";
    assertThat(e.value(speed + "_sum", Map.of("upstream", "a"))).isCloseTo(300, within(1e-9));
    assertThat(e.value(speed + "_bucket", le(Map.of("upstream", "a"), "50.0"))).isEqualTo(1);
    assertThat(e.value(speed + "_bucket", le(Map.of("upstream", "a"), "200.0"))).isEqualTo(1);
    assertThat(e.value(speed + "_bucket", le(Map.of("upstream", "a"), "300.0"))).isEqualTo(2);
    String itl = "tokenmeter_proxy_inter_token_latency_seconds";
    assertThat(e.value(itl + "_sum", Map.of("statistic", "p50"))).isCloseTo(0.018, within(EPS));
    assertThat(e.value(itl + "_bucket", le(Map.of("statistic", "p99"), "0.01"))).isEqualTo(1);
    assertThat(e.value(itl + "_bucket", le(Map.of("statistic", "p99"), "0.05"))).isEqualTo(2);
    assertThat(e.value(itl + "_bucket", le(Map.of("statistic", "max"), "0.025"))).isEqualTo(1);
    assertThat(e.value(itl + "_bucket", le(Map.of("statistic", "max"), "0.1"))).isEqualTo(2);
  }

  @Test
  void failuresCountByClassAndStayOutOfTheSuccessOnlyHistograms() {
    metrics.accept(chat().failed(ErrorClass.HTTP_5XX, 503).times(400_000, -1, Double.NaN, 30 * MS)
        .tokens(50, -1, -1, -1).build());
    metrics.accept(chat().failed(ErrorClass.TRUNCATED, 200).times(300_000, 100 * MS, 10e6, 2000 * MS)
        .tokens(20, 7, -1, -1).itl(MS, MS, MS).build());
    metrics.accept(chat().build());
    Exposition e = scrape(metrics);
    String requests = "tokenmeter_proxy_requests_total";
    assertThat(e.value(requests, Map.of("error_type", "http_5xx"))).isEqualTo(1);
    assertThat(e.value(requests, Map.of("error_type", "truncated"))).isEqualTo(1);
    assertThat(e.value(requests, Map.of("error_type", ""))).isEqualTo(1);
    String op = "gen_ai_client_operation_duration_seconds";
    assertThat(e.value(op + "_sum", Map.of("error_type", "truncated"))).isEqualTo(2.0);
    assertThat(e.value(op + "_sum", Map.of("error_type", "http_5xx"))).isCloseTo(0.03, within(EPS));
    // TTFT, TPOT, ITL and decode speed are for successful responses only: the truncated request's
    // 100 ms TTFT is not there, and the completed one had no timings (its series exist, empty)
    assertThat(e.value("gen_ai_server_time_to_first_token_seconds_count", T1)).isEqualTo(0);
    assertThat(e.value("gen_ai_server_time_per_output_token_seconds_count", T1)).isEqualTo(0);
    assertThat(e.value("tokenmeter_proxy_inter_token_latency_seconds_count", Map.of("statistic", "max")))
        .isEqualTo(0);
    // token usage has no error_type: both failures' known counts are there
    assertThat(e.value("gen_ai_client_token_usage_count", type("input"))).isEqualTo(2);
    assertThat(e.value("gen_ai_client_token_usage_sum", type("input"))).isEqualTo(70);
    assertThat(e.value("gen_ai_client_token_usage_sum", type("output"))).isEqualTo(7);
  }

  private static Map<String, String> type(String tokenType) {
    Map<String, String> m = new java.util.HashMap<>(T1);
    m.put("gen_ai_token_type", tokenType);
    return m;
  }

  private static Map<String, String> le(Map<String, String> labels, String bound) {
    Map<String, String> m = new java.util.HashMap<>(labels);
    m.put("le", bound);
    return m;
  }

  static Exposition scrape(PrometheusProxyMetrics metrics) {
    return Exposition.parse(new String(bytes(metrics), java.nio.charset.StandardCharsets.UTF_8));
  }

  static byte[] bytes(PrometheusProxyMetrics metrics) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      metrics.scrape(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
