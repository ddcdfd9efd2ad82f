/**
 * Live metrics under the OpenTelemetry GenAI semantic-convention names: the metering proxy's
 * ({@link dev.tokenmeter.telemetry.ProxyMetrics}, the contract the proxy calls, and {@link
 * dev.tokenmeter.telemetry.PrometheusProxyMetrics}, its implementation on the Prometheus Java client;
 * docs/PROXY.md, "Metrics") and a bench run's ({@link dev.tokenmeter.telemetry.BenchMetrics};
 * docs/METRICS.md, "Live export"). {@link dev.tokenmeter.telemetry.ScrapeServer} serves a registry at
 * {@code /metrics} for bench (the proxy serves {@code scrape}'s bytes on its own event loop), and
 * {@link dev.tokenmeter.telemetry.OtlpPush} pushes one over OTLP/HTTP with the OpenTelemetry SDK.
 *
 * <p>May use: core.., ledger.., governance..
 */
package dev.tokenmeter.telemetry;
