/**
 * What a stage or a run means, as pure functions of recorded results: {@link
 * dev.tokenmeter.core.analysis.StageResult} (one finished stage, with a {@link
 * dev.tokenmeter.core.analysis.Distribution} per {@link dev.tokenmeter.core.analysis.Metric}),
 * {@link dev.tokenmeter.core.analysis.SteadyState}, the {@code --slo} grammar and its verdicts
 * ({@link dev.tokenmeter.core.slo.Slo}, {@link dev.tokenmeter.core.slo.SloReport}), the
 * degradation curve and its knee ({@link dev.tokenmeter.core.analysis.Sweep}), the capacity search
 * ({@link dev.tokenmeter.core.analysis.LoadSearch}), repeats, cost, and run comparison with its
 * tests ({@link dev.tokenmeter.core.analysis.RunComparison}: Welch, Mann-Whitney, Fisher, Holm,
 * bootstraps). {@link dev.tokenmeter.core.slo.RunAnalysis} is a run's analysis across stages.
 *
 * <p>Mixed: result types, statistics, the SLO grammar and summaries of production traffic ({@link
 * dev.tokenmeter.core.production.ProductionSummary}, {@link
 * dev.tokenmeter.core.production.InFlightCurve}) share this one package; the consolidation issue
 * plans to split it.
 *
 * <p>May use: core.load, core.request
 */
package dev.tokenmeter.core.analysis;
