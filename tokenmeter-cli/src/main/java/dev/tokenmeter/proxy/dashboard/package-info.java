/**
 * The proxy's live dashboard ({@code GET /dashboard} and its JSON feed; docs/PROXY.md,
 * "Dashboard"). {@link dev.tokenmeter.proxy.dashboard.LiveBoard}, a ledger record sink fed every
 * finished request on the record path, keeps bounded rings of token rates and the last hour's
 * requests and answers each poll with a {@link dev.tokenmeter.proxy.dashboard.BoardView} of a
 * window, which {@link dev.tokenmeter.proxy.dashboard.BoardJson} writes as the feed (it also holds
 * the page). {@link dev.tokenmeter.proxy.dashboard.AdminGate} decides who may open it; the SLO
 * panel shows {@link dev.tokenmeter.proxy.dashboard.SloRow}s from an {@link
 * dev.tokenmeter.proxy.dashboard.SloSource} and evaluates nothing. No Netty here, and the wall
 * clock is injected; the routes themselves are {@code proxy}'s {@code DashboardRoutes}.
 *
 * <p>May use: core.., sse.., client.., ledger.., telemetry.., governance..
 */
package dev.tokenmeter.proxy.dashboard;
