/**
 * What a stage or a run measured and means, as pure functions of recorded results: {@link
 * dev.tokenmeter.core.analysis.StageResult} (one finished stage, with a {@link
 * dev.tokenmeter.core.analysis.Distribution} per {@link dev.tokenmeter.core.analysis.Metric}, its
 * per-second {@link dev.tokenmeter.core.analysis.TimeSeries}, its {@link
 * dev.tokenmeter.core.analysis.Sessions} and the client's health), {@link
 * dev.tokenmeter.core.analysis.SteadyState}, the degradation curve and its knee ({@link
 * dev.tokenmeter.core.analysis.Sweep}, {@link dev.tokenmeter.core.analysis.Knee}), the capacity
 * search's plan ({@link dev.tokenmeter.core.analysis.LoadSearch}), repeats, cost, and run
 * comparison ({@link dev.tokenmeter.core.analysis.RunComparison}), whose tests come from {@code
 * core.stats}.
 *
 * <p>The {@code --slo} grammar and its verdicts are {@code core.slo}, which reads these results;
 * summaries of production traffic are {@code core.production}.
 *
 * <p>May use: core.load, core.request, core.stats
 */
package dev.tokenmeter.core.analysis;
