package dev.tokenmeter.telemetry;

import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * The metric families of the proxy's {@code /metrics}, registered in one registry: names, help,
 * units, label names and bucket boundaries. docs/PROXY.md, "Metrics" lists them with their OpenTelemetry
 * names; a change here changes that table.
 *
 * <p>Names are the OpenTelemetry names translated as the OpenTelemetry "Prometheus and OpenMetrics
 * Compatibility" specification says: dots become underscores, the unit is appended ({@code s} as
 * {@code _seconds}; an annotation such as {@code {token}} is dropped; {@code {token}/s} becomes
 * {@code _per_second}), counters end in {@code _total}. Attribute keys become label names the same
 * way ({@code gen_ai.request.model} as {@code gen_ai_request_model}).
 */
final class MetricFamilies {
  static final String OPERATION = "gen_ai_operation_name";
  static final String MODEL = "gen_ai_request_model";
  static final String TOKEN_TYPE = "gen_ai_token_type";
  static final String ERROR_TYPE = "error_type";
  static final String UPSTREAM = "upstream";
  static final String TENANT = "tenant";
  static final String CURRENCY = "currency";
  static final String STATISTIC = "statistic";
  static final String WHERE = "where";

  /** gen_ai.client.token.usage: the semantic conventions' boundaries, 1 to 4^13 tokens. */
  static final double[] TOKEN_BUCKETS = {
    1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864
  };

  /** gen_ai.client.operation.duration and gen_ai.server.request.duration: 10 ms doubling to 81.92 s. */
  static final double[] DURATION_BUCKETS_SECONDS = {
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92
  };

  /** gen_ai.server.time_to_first_token: the semantic conventions' boundaries, 1 ms to 10 s. */
  static final double[] TTFT_BUCKETS_SECONDS = {
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0
  };

  /**
   * gen_ai.server.time_per_output_token and the inter-token latency: the semantic conventions'
   * boundaries (10 ms to 2.5 s) with 1, 2.5 and 5 ms added below them. A GPU server decodes one
   * stream at 5-15 ms per token, all of which the conventions' first bucket would hold; a superset
   * keeps every conventional boundary, so queries that aggregate with other exporters still line up.
   */
  static final double[] TPOT_BUCKETS_SECONDS = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5
  };

  /** tokenmeter.proxy.decode_speed, tokens per second once the first token arrived. */
  static final double[] DECODE_SPEED_BUCKETS = {
    1, 2, 5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 500, 1000, 2000
  };

  /** tokenmeter.proxy.request.overhead: 50 us to 100 ms. */
  static final double[] OVERHEAD_BUCKETS_SECONDS = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1
  };

  final Histogram tokenUsage;
  final Histogram operationDuration;
  final Histogram serverRequestDuration;
  final Histogram timeToFirstToken;
  final Histogram timePerOutputToken;
  final Histogram interTokenLatency;
  final Histogram decodeSpeed;
  final Histogram requestOverhead;
  final Counter requests;
  final Counter cost;
  final Counter dropped;
  final Counter refused;
  final Gauge budgetUsed;
  final Gauge sloBurnRate;
  final Gauge sloAlert;
  final Gauge drift;
  final Gauge driftPsi;

  MetricFamilies(PrometheusRegistry registry, InFlight inFlight) {
    PrometheusProperties props = PrometheusProperties.builder().build();
    tokenUsage = histogram(props, "gen_ai_client_token_usage", null, TOKEN_BUCKETS,
        "Number of input and output tokens used, per request (gen_ai.client.token.usage)",
        OPERATION, MODEL, UPSTREAM, TENANT, TOKEN_TYPE).register(registry);
    operationDuration = histogram(props, "gen_ai_client_operation_duration", Unit.SECONDS,
        DURATION_BUCKETS_SECONDS,
        "GenAI operation duration as the proxy saw the upstream: request sent to response done",
        OPERATION, MODEL, UPSTREAM, TENANT, ERROR_TYPE).register(registry);
    serverRequestDuration = histogram(props, "gen_ai_server_request_duration", Unit.SECONDS,
        DURATION_BUCKETS_SECONDS,
        "Request duration as the proxy served it: request headers received to response done",
        OPERATION, MODEL, UPSTREAM, TENANT, ERROR_TYPE).register(registry);
    timeToFirstToken = histogram(props, "gen_ai_server_time_to_first_token", Unit.SECONDS,
        TTFT_BUCKETS_SECONDS,
        "Time to first token for successful responses: request sent upstream to first token",
        OPERATION, MODEL, UPSTREAM, TENANT).register(registry);
    timePerOutputToken = histogram(props, "gen_ai_server_time_per_output_token", Unit.SECONDS,
        TPOT_BUCKETS_SECONDS,
        "Time per output token after the first, for successful responses (TPOT)",
        OPERATION, MODEL, UPSTREAM, TENANT).register(registry);
    interTokenLatency = histogram(props, "tokenmeter_proxy_inter_token_latency", Unit.SECONDS,
        TPOT_BUCKETS_SECONDS,
        "Per successful request, its inter-token latency p50, p99 and max (label statistic)",
        OPERATION, MODEL, UPSTREAM, STATISTIC).register(registry);
    decodeSpeed = histogram(props, "tokenmeter_proxy_decode_speed_per_second", null,
        DECODE_SPEED_BUCKETS,
        "Per-user decode speed of successful requests, 1/TPOT, in tokens per second",
        OPERATION, MODEL, UPSTREAM).register(registry);
    requestOverhead = histogram(props, "tokenmeter_proxy_request_overhead", Unit.SECONDS,
        OVERHEAD_BUCKETS_SECONDS,
        "Time the proxy added before the upstream saw the request: headers received to request sent",
        UPSTREAM).register(registry);
    requests = Counter.builder(props).name("tokenmeter_proxy_requests")
        .help("Requests the proxy metered, by outcome class (error_type empty when completed)")
        .labelNames(OPERATION, MODEL, UPSTREAM, TENANT, ERROR_TYPE).withoutExemplars()
        .register(registry);
    cost = Counter.builder(props).name("tokenmeter_proxy_cost")
        .help("Price of the requests from the price table, in the currency of label currency")
        .labelNames(TENANT, MODEL, CURRENCY).withoutExemplars().register(registry);
    dropped = Counter.builder(props).name("tokenmeter_proxy_records_dropped")
        .help("Records the proxy's record path dropped because a queue was full")
        .labelNames(WHERE).withoutExemplars().register(registry);
    refused = Counter.builder(props).name("tokenmeter_proxy_refused_requests")
        .help("Requests the proxy refused itself before any upstream, by reason (auth, tenant, budget, upstream, invalid, overload)")
        .labelNames("reason").withoutExemplars().register(registry);
    budgetUsed = Gauge.builder(props).name("tokenmeter_proxy_budget_used_ratio")
        .help("Share of each tenant budget spent in its current period (1 = the limit); unit is tokens or a currency")
        .labelNames(TENANT, "unit", "period").withoutExemplars().register(registry);
    sloBurnRate = Gauge.builder(props).name("tokenmeter_proxy_slo_burn_rate")
        .help("Error budget burn rate of each live SLO over each rolling window: bad share / budget (NaN: no request)")
        .labelNames("slo", "window").withoutExemplars().register(registry);
    sloAlert = Gauge.builder(props).name("tokenmeter_proxy_slo_alert")
        .help("1 while the SLO's alert of this severity fires (page: fast burn, ticket: slow burn), else 0")
        .labelNames("slo", "severity").withoutExemplars().register(registry);
    drift = Gauge.builder(props).name("tokenmeter_proxy_drift")
        .help("1 when live traffic drifted from the --baseline benchmark in this dimension at the last check, else 0")
        .labelNames("dimension").withoutExemplars().register(registry);
    driftPsi = Gauge.builder(props).name("tokenmeter_proxy_drift_psi")
        .help("Population stability index of live traffic against the --baseline benchmark at the last check")
        .labelNames("dimension").withoutExemplars().register(registry);
    GaugeWithCallback.builder(props).name("tokenmeter_proxy_active_requests")
        .help("Requests in flight to each upstream: the proxy's queue depth per upstream")
        .labelNames(UPSTREAM)
        .callback(cb -> inFlight.forEach((upstream, n) -> cb.call(n, upstream)))
        .register(registry);
  }

  static Histogram.Builder histogram(PrometheusProperties props, String name, Unit unit,
      double[] bounds, String help, String... labels) {
    Histogram.Builder b = Histogram.builder(props).name(name).help(help).labelNames(labels)
        .classicOnly().classicUpperBounds(bounds);
    if (unit != null) {
      b.unit(unit);
    }
    b.withoutExemplars();
    return b;
  }
}
