/**
 * The metering proxy's live metrics: {@link dev.tokenmeter.telemetry.ProxyMetrics}, the contract the
 * proxy calls, and {@link dev.tokenmeter.telemetry.PrometheusProxyMetrics}, its implementation on the
 * Prometheus Java client under the OpenTelemetry GenAI semantic-convention names (docs/PROXY.md, "Metrics").
 * Knows nothing of HTTP: the proxy serves {@code scrape}'s bytes at {@code /metrics}.
 */
package dev.tokenmeter.telemetry;
