/**
 * The integration tests ({@code *IT}, run by Failsafe in {@code ./mvnw verify}): each starts real
 * processes or servers (the simulator on port 0, the {@code tokenmeter} jar, the proxy, SQLite or
 * PostgreSQL, headless Chromium for the {@code *BrowserIT}) and talks to them over real sockets,
 * files and signals, through public API only. One place, so a newcomer finds them and a run of
 * {@code -Dit.test=...} needs no package name.
 *
 * <p>Integration tests kept beside their package, and why:
 *
 * <ul>
 *   <li>{@code proxy.ProxySloIT}: drives the proxy's package-private live-SLO wiring ({@code
 *       LiveSlos}, {@code Alerts}) directly, to see alerts reach a webhook, stderr and {@code
 *       /metrics} without a whole {@code tokenmeter proxy} process;
 *   <li>the fuzz targets ({@code *FuzzIT}: {@code sse.SseFramerFuzzIT}, {@code
 *       client.ChunkParserFuzzIT}, {@code client.ChunkScannerFuzzIT}, {@code
 *       core.slo.SloParserFuzzIT}, {@code workload.LengthSpecFuzzIT}, {@code cli.DurationsFuzzIT},
 *       {@code cli.VariantFuzzIT}): each fuzzes one parser, some through package-private entry
 *       points, in a Failsafe execution of their own with Jazzer's agent, and Jazzer keeps each
 *       target's seeds and any crash under {@code src/test/resources/<the test's package>/
 *       <Test>Inputs}; docs/RELIABILITY.md lists them by that path.
 * </ul>
 */
package dev.tokenmeter.it;
