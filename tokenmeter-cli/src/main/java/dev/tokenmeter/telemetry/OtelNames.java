package dev.tokenmeter.telemetry;

import java.util.Map;

/**
 * The OpenTelemetry name and unit of every family tokenmeter exports, keyed by its Prometheus name
 * (as {@code MetricMetadata.getPrometheusName()} gives it: unit suffix included, a counter's {@code
 * _total} not), and the attribute key of every label. The Prometheus names were made from these by
 * the OpenTelemetry "Prometheus and OpenMetrics Compatibility" rules (docs/PROXY.md, "Names");
 * those rules cannot be undone mechanically ({@code gen_ai_client_token_usage} could be {@code
 * gen_ai.client.token_usage}), so the way back is this table. docs/METRICS.md, "Live export", and
 * docs/PROXY.md, "Metrics", list the same pairs.
 */
final class OtelNames {
  private OtelNames() {}

  /** An OpenTelemetry instrument's name and UCUM unit. */
  record Name(String name, String unit) {}

  private static final Map<String, Name> METRICS = Map.ofEntries(
      // the GenAI semantic conventions (bench and proxy)
      Map.entry("gen_ai_client_token_usage", new Name("gen_ai.client.token.usage", "{token}")),
      Map.entry("gen_ai_client_operation_duration_seconds", new Name("gen_ai.client.operation.duration", "s")),
      Map.entry("gen_ai_client_operation_time_to_first_chunk_seconds",
          new Name("gen_ai.client.operation.time_to_first_chunk", "s")),
      Map.entry("gen_ai_client_operation_time_per_output_chunk_seconds",
          new Name("gen_ai.client.operation.time_per_output_chunk", "s")),
      Map.entry("gen_ai_server_request_duration_seconds", new Name("gen_ai.server.request.duration", "s")),
      Map.entry("gen_ai_server_time_to_first_token_seconds", new Name("gen_ai.server.time_to_first_token", "s")),
      Map.entry("gen_ai_server_time_per_output_token_seconds", new Name("gen_ai.server.time_per_output_token", "s")),
      // bench's own
      Map.entry("tokenmeter_bench_requests", new Name("tokenmeter.bench.requests", "{request}")),
      Map.entry("tokenmeter_bench_active_requests", new Name("tokenmeter.bench.active_requests", "{request}")),
      Map.entry("tokenmeter_bench_decode_speed_per_second", new Name("tokenmeter.bench.decode_speed", "{token}/s")),
      Map.entry("tokenmeter_bench_records_dropped", new Name("tokenmeter.bench.records.dropped", "{record}")),
      // the proxy's own
      Map.entry("tokenmeter_proxy_requests", new Name("tokenmeter.proxy.requests", "{request}")),
      Map.entry("tokenmeter_proxy_active_requests", new Name("tokenmeter.proxy.active_requests", "{request}")),
      Map.entry("tokenmeter_proxy_inter_token_latency_seconds", new Name("tokenmeter.proxy.inter_token_latency", "s")),
      Map.entry("tokenmeter_proxy_decode_speed_per_second", new Name("tokenmeter.proxy.decode_speed", "{token}/s")),
      Map.entry("tokenmeter_proxy_request_overhead_seconds", new Name("tokenmeter.proxy.request.overhead", "s")),
      Map.entry("tokenmeter_proxy_cost", new Name("tokenmeter.proxy.cost", "{currency}")),
      Map.entry("tokenmeter_proxy_records_dropped", new Name("tokenmeter.proxy.records.dropped", "{record}")),
      Map.entry("tokenmeter_proxy_refused_requests", new Name("tokenmeter.proxy.refused_requests", "{request}")),
      Map.entry("tokenmeter_proxy_ledger_failed_commits", new Name("tokenmeter.proxy.ledger.failed_commits", "{commit}")),
      Map.entry("tokenmeter_proxy_ledger_dropped_records", new Name("tokenmeter.proxy.ledger.dropped_records", "{record}")),
      Map.entry("tokenmeter_proxy_budget_used_ratio", new Name("tokenmeter.proxy.budget.used", "1")),
      Map.entry("tokenmeter_proxy_budget_sync_failures", new Name("tokenmeter.proxy.budget.sync_failures", "{read}")),
      // a dimensionless unit as an annotation: "1" would add "_ratio" to the Prometheus names
      Map.entry("tokenmeter_proxy_slo_burn_rate", new Name("tokenmeter.proxy.slo.burn_rate", "{rate}")),
      Map.entry("tokenmeter_proxy_slo_alert", new Name("tokenmeter.proxy.slo.alert", "{alert}")),
      Map.entry("tokenmeter_proxy_drift", new Name("tokenmeter.proxy.drift", "{drifted}")),
      Map.entry("tokenmeter_proxy_drift_psi", new Name("tokenmeter.proxy.drift.psi", "{index}")));

  private static final Map<String, String> ATTRIBUTES = Map.of(
      MetricFamilies.OPERATION, "gen_ai.operation.name",
      MetricFamilies.MODEL, "gen_ai.request.model",
      MetricFamilies.TOKEN_TYPE, "gen_ai.token.type",
      MetricFamilies.ERROR_TYPE, "error.type");

  /** The OpenTelemetry name of the family {@code prometheusName}; throws for one not in the table. */
  static Name metric(String prometheusName) {
    Name n = METRICS.get(prometheusName);
    if (n == null) {
      throw new IllegalStateException("no OpenTelemetry name for the metric " + prometheusName
          + ": add it to OtelNames (and to docs/METRICS.md or docs/PROXY.md)");
    }
    return n;
  }

  /** The attribute key of label {@code label}: a convention's key, else the label itself. */
  static String attribute(String label) {
    return ATTRIBUTES.getOrDefault(label, label);
  }

  /** Every Prometheus family name in the table. */
  static java.util.Set<String> prometheusNames() {
    return METRICS.keySet();
  }
}
