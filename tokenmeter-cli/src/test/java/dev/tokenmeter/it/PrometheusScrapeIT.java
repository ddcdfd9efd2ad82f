package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.telemetry.PrometheusProxyMetrics;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import dev.tokenmeter.testkit.PrometheusServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus server scrapes {@link PrometheusProxyMetrics}' exposition over HTTP on loopback
 * every second; its query API returns the values that were fed, and follows them as they change.
 */
class PrometheusScrapeIT {
  private static final long MS = 1_000_000L;

  @Test
  void prometheusScrapesTheExpositionAndItsQueriesReturnWhatWasFed(@TempDir Path dir) throws Exception {
    PrometheusServer.assumeInstalled();
    PrometheusProxyMetrics metrics = PrometheusProxyMetrics.create(PrometheusProxyMetrics.Limits.DEFAULT, List.of("a", "b"));
    long[] ttftMs = {50, 150, 400};
    for (int i = 0; i < 3; i++) {
      metrics.accept(MeteredRequestBuilder.chat("t1", "m1", "a").tokens(100 * (i + 1), 20, -1, -1)
          .times(200_000, ttftMs[i] * MS, 10e6, 900 * MS).build());
    }
    metrics.accept(MeteredRequestBuilder.chat("t2", "m1", "b").failed(ErrorClass.HTTP_429, 429)
        .times(200_000, -1, Double.NaN, 3 * MS).build());
    metrics.started("a");
    metrics.started("a");

    HttpServer http = serve(metrics);
    try (PrometheusServer prometheus = PrometheusServer.start(dir, http.getAddress().getPort())) {
      String inputSum = "gen_ai_client_token_usage_sum{gen_ai_token_type=\"input\",tenant=\"t1\"}";
      prometheus.awaitValue(inputSum, 600);
      assertThat(prometheus.value("up{job=\"tokenmeter\"}")).isEqualTo(1);
      assertThat(prometheus.value("gen_ai_client_token_usage_count{gen_ai_token_type=\"input\",tenant=\"t1\"}")).isEqualTo(3);
      String ttft = "gen_ai_server_time_to_first_token_seconds_bucket{tenant=\"t1\",le=\"%s\"}";
      assertThat(prometheus.value(ttft.formatted("0.1"))).isEqualTo(1);
      assertThat(prometheus.value(ttft.formatted("0.25"))).isEqualTo(2);
      assertThat(prometheus.value(ttft.formatted("0.5"))).isEqualTo(3);
      assertThat(prometheus.value("gen_ai_server_time_to_first_token_seconds_sum{tenant=\"t1\"}")).isCloseTo(0.6, within(1e-9));
      assertThat(prometheus.value("tokenmeter_proxy_requests_total{error_type=\"http_429\",tenant=\"t2\",upstream=\"b\"}")).isEqualTo(1);
      assertThat(prometheus.value("tokenmeter_proxy_active_requests{upstream=\"a\"}")).isEqualTo(2);
      assertThat(prometheus.value("tokenmeter_proxy_active_requests{upstream=\"b\"}")).isEqualTo(0);
      // the empty error_type of completed requests is no label at all once stored
      JsonNode ok = prometheus.query("tokenmeter_proxy_requests_total{tenant=\"t1\"}");
      assertThat(ok).hasSize(1);
      assertThat(ok.get(0).path("metric").has("error_type")).isFalse();
      assertThat(ok.get(0).path("metric").path("gen_ai_operation_name").asText()).isEqualTo("chat");

      // live: what changes after the first scrape shows in a later one
      metrics.accept(MeteredRequestBuilder.chat("t1", "m1", "a").tokens(50, 5, -1, -1).build());
      metrics.ended("a");
      metrics.ended("a");
      prometheus.awaitValue(inputSum, 650);
      assertThat(prometheus.value("tokenmeter_proxy_active_requests{upstream=\"a\"}")).isEqualTo(0);
    } finally {
      http.stop(0);
    }
  }

  private static HttpServer serve(PrometheusProxyMetrics metrics) throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext("/metrics", exchange -> {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      metrics.scrape(body);
      exchange.getResponseHeaders().set("Content-Type", metrics.contentType());
      exchange.sendResponseHeaders(200, body.size());
      try (OutputStream out = exchange.getResponseBody()) {
        body.writeTo(out);
      }
    });
    http.start();
    return http;
  }
}
