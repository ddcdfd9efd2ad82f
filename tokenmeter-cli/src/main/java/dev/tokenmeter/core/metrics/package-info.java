/**
 * Recording a stage. {@link dev.tokenmeter.core.metrics.RequestMetrics} turns one finished
 * request's timeline into the numbers of the measurement contract (docs/METRICS.md); {@link
 * dev.tokenmeter.core.metrics.StageRecorder}, single writer on the stage's loop, records every
 * request into HdrHistograms, counters and a per-second series and finishes them into a {@link
 * dev.tokenmeter.core.analysis.StageResult}, with {@link dev.tokenmeter.core.metrics.LiveStats}
 * snapshots for the progress line. Also here: counting output tokens off the event loop ({@link
 * dev.tokenmeter.core.metrics.OutputTokenCounter}, {@link
 * dev.tokenmeter.core.metrics.CountingThread}), goodput's numerator ({@link
 * dev.tokenmeter.core.metrics.GoodputCounter}) and word counts ({@link
 * dev.tokenmeter.core.metrics.Words}).
 *
 * <p>What a recorder produces ({@code StageResult}, {@code Metric}, {@code Distribution}, {@code
 * TimeSeries}, {@code SteadyState}) is defined in {@code core.analysis}, which is why recording
 * uses analysis rather than the other way round. Goodput counts the requests meeting the
 * per-request objectives of a {@code core.slo} SLO.
 *
 * <p>May use: core.analysis, core.load, core.request, core.slo
 */
package dev.tokenmeter.core.metrics;
