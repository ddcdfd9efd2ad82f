/**
 * How a route that names several upstreams spreads its requests (docs/PROXY.md, "Routing by TPS
 * curve"). A {@link dev.tokenmeter.proxy.balance.Balancer} picks one upstream per request on the
 * event loop and never waits: round robin, least in flight, or {@link
 * dev.tokenmeter.proxy.balance.TpsBalancer}, the highest predicted per-user decode TPS at the
 * upstream's in-flight count + 1. As a ledger record sink it learns each upstream's {@link
 * dev.tokenmeter.proxy.balance.TpsCurve} from finished requests on the record path. {@link
 * dev.tokenmeter.proxy.balance.Balance} is the policy as configured; {@link
 * dev.tokenmeter.proxy.balance.SeedCurve} seeds a curve from a bench run's {@code summary.json}.
 * No Netty here; the ticker is injected.
 *
 * <p>May use: core.., sse.., client.., ledger.., telemetry.., governance..
 */
package dev.tokenmeter.proxy.balance;
