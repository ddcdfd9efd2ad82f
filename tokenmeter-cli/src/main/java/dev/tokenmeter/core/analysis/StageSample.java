package dev.tokenmeter.core.analysis;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * One run's stage as a comparison sees it: the headline distributions (from its histograms) and the
 * per-request values behind them. Arrays must not be modified after construction.
 *
 * @param index the stage's index in its run
 * @param label the load label ({@code "c=8"})
 * @param distributions headline distributions of successful measured requests, in report units
 * @param perRequest values of successful measured requests, in report units (ms, tokens/s): at
 *     least {@link Metric#TTFT}, {@link Metric#TPOT}, {@link Metric#E2E}, {@link Metric#DECODE_TPS}
 *     where the run has them; a missing metric is not tested
 * @param outputTokensPerSecond aggregate output tokens/s of the window
 * @param requestsPerSecond completed measured requests per second of window
 * @param completed measured requests that succeeded
 * @param failed measured requests that failed
 * @param atSeconds per metric, aligned with {@code perRequest}: when each value's request was
 *     scheduled, seconds from the stage's first measured request (pooled repeats: from their own
 *     repeat's first); what the blocks of time of a comparison are cut from. Empty when unknown
 * @param runOf per metric, aligned with {@code perRequest}: which of the {@code runs} pooled here
 *     each value came from, 0 to runs − 1. Empty for a single run
 * @param runs how many runs (repeats of the stage, {@code --repeat}) are pooled here, at least 1
 */
public record StageSample(
    int index,
    String label,
    Map<Metric, Distribution> distributions,
    Map<Metric, double[]> perRequest,
    double outputTokensPerSecond,
    double requestsPerSecond,
    long completed,
    long failed,
    Map<Metric, double[]> atSeconds,
    Map<Metric, int[]> runOf,
    int runs) {

  public StageSample {
    Objects.requireNonNull(label, "label");
    distributions = Collections.unmodifiableMap(copy(distributions));
    perRequest = Collections.unmodifiableMap(copy(perRequest));
    atSeconds = Collections.unmodifiableMap(copy(atSeconds));
    runOf = Collections.unmodifiableMap(copy(runOf));
    if (runs < 1) {
      throw new IllegalArgumentException("at least one run, got " + runs);
    }
  }

  /** One run's stage without request times: nothing to cut into blocks, so nothing is tested per block. */
  public StageSample(int index, String label, Map<Metric, Distribution> distributions,
      Map<Metric, double[]> perRequest, double outputTokensPerSecond, double requestsPerSecond,
      long completed, long failed) {
    this(index, label, distributions, perRequest, outputTokensPerSecond, requestsPerSecond, completed,
        failed, Map.of(), Map.of(), 1);
  }

  private static <V> EnumMap<Metric, V> copy(Map<Metric, V> map) {
    EnumMap<Metric, V> m = new EnumMap<>(Metric.class);
    m.putAll(map);
    return m;
  }

  /** Failed / (completed + failed) as a percentage; NaN without requests. */
  public double errorRatePercent() {
    long total = completed + failed;
    return total == 0 ? Double.NaN : 100.0 * failed / total;
  }

  /** The headline value of {@code q}. */
  double value(ComparedQuantity q) {
    return switch (q) {
      case OUTPUT_TPS -> outputTokensPerSecond;
      case REQUEST_RATE -> requestsPerSecond;
      case ERROR_RATE -> errorRatePercent();
      default -> percentile(distributions.getOrDefault(q.metric(), Distribution.EMPTY), q.quantile());
    };
  }

  private static double percentile(Distribution d, double q) {
    if (q == 0.5) {
      return d.p50();
    }
    if (q == 0.99) {
      return d.p99();
    }
    if (q == 0.10) {
      return d.p10();
    }
    throw new IllegalArgumentException("no headline percentile " + q);
  }
}
