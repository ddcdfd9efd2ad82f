package dev.tokenmeter.telemetry;

import static dev.tokenmeter.telemetry.PrometheusProxyMetricsTest.bytes;
import static dev.tokenmeter.telemetry.PrometheusProxyMetricsTest.scrape;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.testkit.Exposition;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Several record threads, stream-path threads and a scraper at once: nothing lost or torn. */
class ProxyMetricsConcurrencyTest {
  private static final int THREADS = 4;
  private static final int PER_THREAD = 5_000;

  @Test
  void concurrentAcceptsStartsEndsAndScrapesAddUpExactly() throws Exception {
    PrometheusProxyMetrics metrics = PrometheusProxyMetrics.create();
    CountDownLatch go = new CountDownLatch(1);
    AtomicBoolean recording = new AtomicBoolean(true);
    AtomicInteger scrapes = new AtomicInteger();
    AtomicReference<Throwable> scrapeFailure = new AtomicReference<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      String tenant = "t" + (t % 2); // two threads per series: contended data points
      MeteredRequest r = MeteredRequestBuilder.chat(tenant, "m", "a").tokens(7, 3, -1, -1)
          .times(100_000, 50_000_000, 10e6, 100_000_000).build();
      workers.add(Thread.ofPlatform().start(() -> {
        await(go);
        for (int i = 0; i < PER_THREAD; i++) {
          metrics.started("a");
          metrics.accept(r);
          metrics.ended("a");
        }
      }));
    }
    Thread scraper = Thread.ofPlatform().start(() -> {
      await(go);
      while (recording.get() && scrapeFailure.get() == null) {
        Exposition e = Exposition.parse(new String(bytes(metrics), java.nio.charset.StandardCharsets.UTF_8));
        for (Exposition.Sample s : e.find("gen_ai_server_time_to_first_token_seconds_count", Map.of())) {
          // a scrape is consistent per series: the +Inf bucket always equals the count
          double inf = e.value("gen_ai_server_time_to_first_token_seconds_bucket",
              Map.of("tenant", s.labels().get("tenant"), "le", "+Inf"));
          if (inf != s.value()) {
            scrapeFailure.set(new AssertionError("torn scrape: +Inf " + inf + " != count " + s.value()));
          }
        }
        scrapes.incrementAndGet();
      }
    });
    go.countDown();
    for (Thread w : workers) {
      w.join();
    }
    recording.set(false);
    scraper.join();
    assertThat(scrapeFailure.get()).isNull();
    Exposition e = scrape(metrics);
    double n = THREADS * PER_THREAD;
    assertThat(e.find("tokenmeter_proxy_requests_total", Map.of()).stream().mapToDouble(Exposition.Sample::value).sum())
        .isEqualTo(n);
    assertThat(e.value("gen_ai_client_token_usage_sum", Map.of("tenant", "t0", "gen_ai_token_type", "output")))
        .isEqualTo(3 * n / 2);
    assertThat(e.value("gen_ai_client_token_usage_count", Map.of("tenant", "t1", "gen_ai_token_type", "input")))
        .isEqualTo(n / 2);
    assertThat(e.value("gen_ai_server_time_to_first_token_seconds_bucket", Map.of("tenant", "t1", "le", "0.06")))
        .isEqualTo(n / 2);
    assertThat(e.value("tokenmeter_proxy_active_requests", Map.of("upstream", "a"))).isEqualTo(0);
    assertThat(scrapes.get()).isPositive();
  }

  private static void await(CountDownLatch go) {
    try {
      go.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
