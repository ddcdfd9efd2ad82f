package dev.tokenmeter.telemetry;

import static dev.tokenmeter.telemetry.PrometheusProxyMetricsTest.scrape;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.telemetry.PrometheusProxyMetrics.Limits;
import dev.tokenmeter.testkit.Exposition;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Which series exist: label caps, in-flight gauges, drops, cost, endpoints that are not GenAI. */
class ProxyMetricsLabelsTest {
  @Test
  void tenantsAndModelsPastTheirCapsFoldIntoOther() {
    PrometheusProxyMetrics m = PrometheusProxyMetrics.create(new Limits(2, 1, 32), List.of());
    m.accept(MeteredRequestBuilder.chat("t1", "m1", "a").build());
    m.accept(MeteredRequestBuilder.chat("t2", "m1", "a").build());
    m.accept(MeteredRequestBuilder.chat("t3", "m1", "a").build()); // third tenant: other
    m.accept(MeteredRequestBuilder.chat("t1", "m2", "a").build()); // second model: other
    m.accept(MeteredRequestBuilder.chat("t4", "m3", "a").build()); // both other
    Exposition e = scrape(m);
    String n = "tokenmeter_proxy_requests_total";
    assertThat(labelValues(e, n, "tenant")).containsExactlyInAnyOrder("t1", "t2", "other");
    assertThat(labelValues(e, n, "gen_ai_request_model")).containsExactlyInAnyOrder("m1", "other");
    assertThat(e.value(n, Map.of("tenant", "t1", "gen_ai_request_model", "m1"))).isEqualTo(1);
    assertThat(e.value(n, Map.of("tenant", "t1", "gen_ai_request_model", "other"))).isEqualTo(1);
    assertThat(e.value(n, Map.of("tenant", "other", "gen_ai_request_model", "m1"))).isEqualTo(1);
    assertThat(e.value(n, Map.of("tenant", "other", "gen_ai_request_model", "other"))).isEqualTo(1);
    assertThat(e.find(n, Map.of()).stream().mapToDouble(Exposition.Sample::value).sum()).isEqualTo(5);
  }

  @Test
  void inFlightPerUpstreamStartsAtZeroForConfiguredUpstreams() {
    PrometheusProxyMetrics m = PrometheusProxyMetrics.create(new Limits(10, 10, 3), List.of("a", "b"));
    String n = "tokenmeter_proxy_active_requests";
    assertThat(scrape(m).value(n, Map.of("upstream", "b"))).isEqualTo(0);
    m.started("a");
    m.started("a");
    m.started("a");
    m.ended("a");
    m.started("c"); // not configured: admitted on first use, the third of 3
    m.started("d"); // past the cap of 3 upstreams
    m.started("e");
    m.ended("e");
    Exposition e = scrape(m);
    assertThat(e.value(n, Map.of("upstream", "a"))).isEqualTo(2);
    assertThat(e.value(n, Map.of("upstream", "b"))).isEqualTo(0);
    assertThat(e.value(n, Map.of("upstream", "c"))).isEqualTo(1);
    assertThat(e.value(n, Map.of("upstream", "other"))).isEqualTo(1);
    assertThat(e.find(n, Map.of())).hasSize(4);
  }

  @Test
  void dropsCountByPlace() {
    PrometheusProxyMetrics m = PrometheusProxyMetrics.create();
    m.dropped("ledger");
    m.dropped("ledger");
    m.dropped("metrics");
    for (int i = 0; i < 20; i++) {
      m.dropped("place-" + i); // 16 places kept (record_queue is there from the start): 13 more, then 7 fold into other
    }
    Exposition e = scrape(m);
    String n = "tokenmeter_proxy_records_dropped_total";
    assertThat(e.value(n, Map.of("where", "ledger"))).isEqualTo(2);
    assertThat(e.value(n, Map.of("where", "metrics"))).isEqualTo(1);
    assertThat(e.value(n, Map.of("where", "record_queue"))).isZero();
    assertThat(e.value(n, Map.of("where", "place-12"))).isEqualTo(1);
    assertThat(e.value(n, Map.of("where", "other"))).isEqualTo(7);
    assertThat(e.find(n, Map.of())).hasSize(17);
    assertThatThrownBy(() -> m.dropped(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void refusalsAndTheLedgersHealthAreCounted() {
    PrometheusProxyMetrics m = PrometheusProxyMetrics.create();
    m.refused("budget");
    m.refused("budget");
    m.refused("auth");
    java.util.concurrent.atomic.AtomicLong failed = new java.util.concurrent.atomic.AtomicLong(3);
    m.watchLedger(failed::get, () -> 41);
    m.watchBudgetSync(() -> 7);
    failed.set(4); // read at each scrape
    Exposition e = scrape(m);
    assertThat(e.value("tokenmeter_proxy_refused_requests_total", Map.of("reason", "budget"))).isEqualTo(2);
    assertThat(e.value("tokenmeter_proxy_refused_requests_total", Map.of("reason", "auth"))).isEqualTo(1);
    assertThat(e.value("tokenmeter_proxy_refused_requests_total", Map.of("reason", "overload"))).isZero();
    assertThat(e.find("tokenmeter_proxy_refused_requests_total", Map.of())).hasSize(ProxyMetrics.REFUSAL_REASONS.size());
    assertThat(e.value("tokenmeter_proxy_ledger_failed_commits_total", Map.of())).isEqualTo(4);
    assertThat(e.value("tokenmeter_proxy_ledger_dropped_records_total", Map.of())).isEqualTo(41);
    assertThat(e.value("tokenmeter_proxy_budget_sync_failures_total", Map.of())).isEqualTo(7);
  }

  @Test
  void costAddsUpPerTenantModelAndCurrencyAndSkipsUnpriced() {
    PrometheusProxyMetrics m = PrometheusProxyMetrics.create();
    m.accept(MeteredRequestBuilder.chat("t1", "m1", "a").cost(0.5, "USD").build());
    m.accept(MeteredRequestBuilder.chat("t1", "m1", "a").cost(0.25, "USD").build());
    m.accept(MeteredRequestBuilder.chat("t1", "m1", "a").build()); // unpriced: NaN, no currency
    m.accept(MeteredRequestBuilder.chat("t1", "m1", "a").cost(1.0, "EUR").build());
    m.accept(MeteredRequestBuilder.chat("t2", "m1", "a").cost(0.125, "USD").build());
    Exposition e = scrape(m);
    String n = "tokenmeter_proxy_cost_total";
    assertThat(e.value(n, Map.of("tenant", "t1", "currency", "USD"))).isCloseTo(0.75, within(1e-12));
    assertThat(e.value(n, Map.of("tenant", "t1", "currency", "EUR"))).isEqualTo(1.0);
    assertThat(e.value(n, Map.of("tenant", "t2", "currency", "USD"))).isEqualTo(0.125);
    assertThat(e.find(n, Map.of())).hasSize(3);
    assertThat(e.value("tokenmeter_proxy_requests_total", Map.of("tenant", "t1"))).isEqualTo(4);
  }

  @Test
  void endpointsThatAreNotGenAiAreCountedButHaveNoGenAiSeries() {
    PrometheusProxyMetrics m = PrometheusProxyMetrics.create();
    m.accept(MeteredRequestBuilder.chat("t1", null, "a").endpoint("/v1/models").times(200_000, -1, Double.NaN, 5_000_000).build());
    m.accept(MeteredRequestBuilder.chat("t1", "e5", "a").endpoint("/v1/embeddings").tokens(12, -1, -1, -1)
        .times(200_000, -1, Double.NaN, 5_000_000).build());
    Exposition e = scrape(m);
    assertThat(e.value("tokenmeter_proxy_requests_total", Map.of("gen_ai_operation_name", "other", "gen_ai_request_model", "")))
        .isEqualTo(1);
    assertThat(labelValues(e, "gen_ai_client_token_usage_count", "gen_ai_operation_name")).containsExactly("embeddings");
    assertThat(e.value("gen_ai_client_token_usage_sum", Map.of("gen_ai_token_type", "input"))).isEqualTo(12);
    assertThat(e.value("gen_ai_client_operation_duration_seconds_count", Map.of())).isEqualTo(1);
    // embeddings stream no tokens: no TTFT, TPOT, ITL or decode-speed series at all
    assertThat(e.find("gen_ai_server_time_to_first_token_seconds_count", Map.of())).isEmpty();
    assertThat(e.find("tokenmeter_proxy_inter_token_latency_seconds_count", Map.of())).isEmpty();
    assertThat(e.value("tokenmeter_proxy_request_overhead_seconds_count", Map.of("upstream", "a"))).isEqualTo(2);
  }

  @Test
  void labelValuesWithQuotesBackslashesAndNewlinesSurviveTheExposition() {
    PrometheusProxyMetrics m = PrometheusProxyMetrics.create();
    String tenant = "acme \"blue\" \\ team\nB";
    String model = "org/Model-7B:q4 ünï";
    m.accept(MeteredRequestBuilder.chat(tenant, model, "a").build());
    Exposition e = scrape(m);
    assertThat(e.value("tokenmeter_proxy_requests_total", Map.of("tenant", tenant, "gen_ai_request_model", model)))
        .isEqualTo(1);
  }

  @Test
  void limitsBelowOneAreRefusedWithTheirName() {
    assertThatThrownBy(() -> new Limits(0, 1, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("metrics label limit maxTenants must be at least 1, got 0");
    assertThatThrownBy(() -> new Limits(1, -2, 1)).hasMessageContaining("maxModels");
    assertThatThrownBy(() -> new Limits(1, 1, 0)).hasMessageContaining("maxUpstreams");
  }

  @Test
  void theContentTypeIsTextFormat004() {
    assertThat(PrometheusProxyMetrics.create().contentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
  }

  static Set<String> labelValues(Exposition e, String name, String label) {
    return e.find(name, Map.of()).stream().map(s -> s.labels().get(label)).collect(Collectors.toSet());
  }
}
