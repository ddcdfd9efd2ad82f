package dev.tokenmeter.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import dev.tokenmeter.testkit.OtlpReceiver;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link OtlpPush} against a local OTLP/HTTP receiver: the proxy's metrics arrive under their
 * OpenTelemetry names and units, histograms with per-bucket counts over the same boundaries,
 * counters as cumulative monotonic sums, labels as the conventions' attribute keys; the final values
 * are pushed at close; an unreachable collector is one line.
 */
class OtlpPushTest {
  private static final long MS = 1_000_000L;
  private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-11-25T12:00:00Z"));

  @Test
  void theProxysMetricsArriveUnderTheirOpenTelemetryNames() throws Exception {
    PrometheusProxyMetrics metrics = PrometheusProxyMetrics.create();
    metrics.accept(MeteredRequestBuilder.chat("t1", "m1", "a").tokens(100, 20, -1, -1)
        .times(200_000, 50 * MS, 10e6, 900 * MS).build());
    metrics.accept(MeteredRequestBuilder.chat("t1", "m1", "a").tokens(300, 40, -1, -1)
        .times(200_000, 400 * MS, 10e6, 900 * MS).build());
    metrics.accept(MeteredRequestBuilder.chat("t2", "m1", "a").failed(ErrorClass.HTTP_429, 429)
        .times(200_000, -1, Double.NaN, 3 * MS).build());
    metrics.budgetUsed("t1", "tokens", "day", 0.25);
    metrics.started("a");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (OtlpReceiver receiver = OtlpReceiver.start()) {
      OtlpPush push = metrics.push(new OtlpPush.Settings(URI.create(receiver.root()), Duration.ofHours(1)), CLOCK,
          new PrintStream(err, true, StandardCharsets.UTF_8));
      assertThat(receiver.requests()).as("the first push is one interval away").isEmpty();
      push.close();
      assertThat(receiver.requests()).as("close pushes the final values").hasSize(1);
      assertThat(receiver.contentTypes()).containsExactly("application/x-protobuf");
      assertThat(push.exports()).isEqualTo(1);
      assertThat(push.failures()).isZero();

      var resource = receiver.requests().get(0).getResourceMetrics(0);
      assertThat(OtlpReceiver.attribute(resource.getResource().getAttributesList(), "service.name")).isEqualTo("tokenmeter");
      assertThat(resource.getScopeMetrics(0).getScope().getName()).isEqualTo("dev.tokenmeter");

      Metric tokens = receiver.last("gen_ai.client.token.usage").orElseThrow();
      assertThat(tokens.getUnit()).isEqualTo("{token}");
      assertThat(tokens.getHistogram().getAggregationTemporality())
          .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
      HistogramDataPoint input = point(tokens, "gen_ai.token.type", "input");
      assertThat(input.getSum()).isEqualTo(400);
      assertThat(input.getCount()).isEqualTo(2);
      assertThat(OtlpReceiver.attribute(input.getAttributesList(), "gen_ai.request.model")).isEqualTo("m1");
      assertThat(OtlpReceiver.attribute(input.getAttributesList(), "gen_ai.operation.name")).isEqualTo("chat");
      assertThat(OtlpReceiver.attribute(input.getAttributesList(), "tenant")).isEqualTo("t1");
      assertThat(input.getStartTimeUnixNano()).isEqualTo(CLOCK.instant().getEpochSecond() * 1_000_000_000L);

      Metric ttft = receiver.last("gen_ai.server.time_to_first_token").orElseThrow();
      assertThat(ttft.getUnit()).isEqualTo("s");
      HistogramDataPoint t1 = ttft.getHistogram().getDataPoints(0);
      assertThat(t1.getExplicitBoundsList()).containsExactlyElementsOf(boxed(MetricFamilies.TTFT_BUCKETS_SECONDS));
      assertThat(t1.getBucketCountsCount()).isEqualTo(MetricFamilies.TTFT_BUCKETS_SECONDS.length + 1);
      // 50 ms in (0.04, 0.06], 400 ms in (0.25, 0.5]: one each, not cumulative
      assertThat(t1.getBucketCounts(5)).isEqualTo(1);
      assertThat(t1.getBucketCounts(9)).isEqualTo(1);
      assertThat(t1.getBucketCountsList().stream().mapToLong(Long::longValue).sum()).isEqualTo(2);

      Metric requests = receiver.last("tokenmeter.proxy.requests").orElseThrow();
      assertThat(requests.getUnit()).isEqualTo("{request}");
      assertThat(requests.getSum().getIsMonotonic()).isTrue();
      NumberDataPoint refused = requests.getSum().getDataPointsList().stream()
          .filter(p -> "http_429".equals(OtlpReceiver.attribute(p.getAttributesList(), "error.type"))).findFirst().orElseThrow();
      assertThat(refused.getAsDouble()).isEqualTo(1);
      NumberDataPoint ok = requests.getSum().getDataPointsList().stream()
          .filter(p -> "t1".equals(OtlpReceiver.attribute(p.getAttributesList(), "tenant"))).findFirst().orElseThrow();
      assertThat(OtlpReceiver.attribute(ok.getAttributesList(), "error.type")).as("completed: no error.type").isNull();

      assertThat(receiver.last("tokenmeter.proxy.active_requests").orElseThrow().getGauge().getDataPoints(0).getAsDouble())
          .isEqualTo(1);
      assertThat(receiver.last("tokenmeter.proxy.budget.used").orElseThrow().getUnit()).isEqualTo("1");
      assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }
  }

  @Test
  void anUnreachableCollectorIsOneLineAndACount() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    OtlpPush push = BenchMetrics.create().push(new OtlpPush.Settings(URI.create("http://127.0.0.1:" + port),
        Duration.ofHours(1)), CLOCK, new PrintStream(err, true, StandardCharsets.UTF_8));
    push.close();
    String said = err.toString(StandardCharsets.UTF_8);
    assertThat(said.lines()).hasSize(2);
    assertThat(said).startsWith("tokenmeter: OTLP push to http://127.0.0.1:" + port + "/v1/metrics failed")
        .contains("tokenmeter: 1 of 1 OTLP pushes to http://127.0.0.1:" + port + "/v1/metrics failed")
        .doesNotContain("Exception").doesNotContain("\tat ");
  }

  @Test
  void settingsNameTheEndpointAndRefuseWhatIsNotOne() {
    assertThat(settings("http://collector:4318").endpoint()).isEqualTo("http://collector:4318/v1/metrics");
    assertThat(settings("http://collector:4318/").endpoint()).isEqualTo("http://collector:4318/v1/metrics");
    assertThat(settings("https://otel.example/otlp/v1/metrics").endpoint()).isEqualTo("https://otel.example/otlp/v1/metrics");
    assertThatThrownBy(() -> settings("collector:4318")).hasMessage(
        "--otlp collector:4318: give the collector's http(s)://HOST:PORT (OTLP/HTTP, e.g. http://127.0.0.1:4318)");
    assertThatThrownBy(() -> new OtlpPush.Settings(URI.create("http://c:4318"), Duration.ZERO))
        .hasMessage("--otlp-interval must be positive, got 0 ms");
  }

  private static OtlpPush.Settings settings(String url) {
    return new OtlpPush.Settings(URI.create(url), Duration.ofSeconds(10));
  }

  private static HistogramDataPoint point(Metric m, String key, String value) {
    return m.getHistogram().getDataPointsList().stream()
        .filter(p -> value.equals(OtlpReceiver.attribute(p.getAttributesList(), key))).findFirst().orElseThrow();
  }

  private static List<Double> boxed(double[] values) {
    return java.util.Arrays.stream(values).boxed().toList();
  }
}
