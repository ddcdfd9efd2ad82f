/**
 * Service-level objectives over measured results: the {@code --slo} grammar ({@link
 * dev.tokenmeter.core.slo.Slo}, parsed by {@link dev.tokenmeter.core.slo.SloParser}, over the
 * metrics of {@link dev.tokenmeter.core.slo.SloMetric}, per turn range), the verdict of each
 * stage ({@link dev.tokenmeter.core.slo.SloReport}), and what needs those verdicts: the capacity
 * search's answer ({@link dev.tokenmeter.core.slo.SearchResult}) and a run's analysis across its
 * stages ({@link dev.tokenmeter.core.slo.RunAnalysis}: the curve, the verdicts, the answer).
 *
 * <p>It reads {@code core.analysis}'s results, so a result type never names an SLO; the live SLOs
 * of the proxy ({@code governance}) and goodput counting ({@code core.metrics}) use the same grammar.
 *
 * <p>May use: core.analysis, core.load
 */
package dev.tokenmeter.core.slo;
