/**
 * The metering reverse proxy. {@link dev.tokenmeter.proxy.ProxyRun} assembles one from its settings
 * (ledger writer, metrics, budgets, live SLOs, drift, alerts, server, watch) and owns its start and
 * stop; {@link dev.tokenmeter.proxy.ProxyServer} passes OpenAI-compatible
 * (and any other HTTP/1.1) traffic through unchanged and meters every request into {@code ledger}
 * records. Two paths that never mix (docs/ARCHITECTURE.md, "The proxy"): the stream path on Netty
 * event loops ({@code FrontHandler}, {@code ProxyExchange}, {@code UpstreamLink}) only frames,
 * timestamps and forwards; the record path ({@code RecordPath}, {@code RequestState}) runs on its own
 * threads behind bounded queues that drop rather than wait, reads each response with {@code
 * client}'s {@code ResponseReader} (bench's own reader: the same record for the same response;
 * the upstream connections' read stamps, keep-alive pool and stale-connection resend are {@code
 * client}'s too),
 * counts, prices and hands records to the sinks. At the edge: tenants from API keys ({@link
 * dev.tokenmeter.proxy.Tenants}), routing ({@link dev.tokenmeter.proxy.Routing}, pools balanced by
 * {@code proxy.balance}), in-flight limits ({@link dev.tokenmeter.proxy.AdmissionLimits}) and
 * {@code governance}'s budgets; {@link dev.tokenmeter.proxy.ProxyWatch} logs what it drops.
 *
 * <p>Also here: the settings as written, from flags or a YAML or JSON file, checked into a {@link
 * dev.tokenmeter.proxy.ProxyConfig} by {@link dev.tokenmeter.proxy.ProxySettings} and seven
 * package-private readers ({@code SettingsFileReader} for a file's form, {@code *Settings} per
 * section, {@code SettingsFiles}): 8 of the package's 47 files.
 *
 * <p>May use: core.., sse.., client.., ledger.., telemetry.., governance..
 */
package dev.tokenmeter.proxy;
