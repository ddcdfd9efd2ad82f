/**
 * Summaries of production traffic, as the proxy's ledger recorded it ({@code proxy report},
 * {@code report --production}): one metered request as analysis sees it ({@link
 * dev.tokenmeter.core.production.ProductionRequest}), a window of them cut into stages as a bench
 * run would have measured them ({@link dev.tokenmeter.core.production.ProductionStages}), the
 * window's summary ({@link dev.tokenmeter.core.production.ProductionSummary}) and the throughput
 * per user against the number in flight ({@link dev.tokenmeter.core.production.InFlightCurve}).
 *
 * <p>May use: core.analysis
 */
package dev.tokenmeter.core.production;
