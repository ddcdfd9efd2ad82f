package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.analysis.Slo;
import dev.tokenmeter.core.analysis.SloMetric;
import dev.tokenmeter.core.request.Phase;
import java.util.Arrays;
import java.util.List;

/**
 * Counts, per stage, the measured requests that succeeded and met every per-request objective of an
 * SLO: goodput's numerator ({@code docs/METRICS.md}, "Goodput"). A stage-level percentile objective
 * ({@code ttft.p99<=800ms}) is judged per request by its threshold ({@code ttft <= 800 ms}), as
 * DistServe and vLLM's {@code --goodput} do; ITL, throughput and error objectives have no
 * per-request value and do not count here.
 *
 * <p>A request with no value for a metric that needs two tokens (TPOT, TPS: one output token, or
 * every token in one read) meets that objective, as vLLM counts a one-token request's TPOT as 0; a
 * succeeded request with no first token or end time (which should not happen) does not meet TTFT or
 * E2E objectives.
 *
 * <p><b>Threading.</b> Single writer: {@link #accept} from the thread that ends requests (the event
 * loop); {@link #count} after the stage ended, ordered after the writes by the stage's completion.
 * Cost per request: one comparison per per-request objective, no allocation.
 */
public final class GoodputCounter {
  private final SloMetric[] metrics;
  private final Slo.Op[] ops;
  private final double[] thresholds;
  private long[] counts = new long[8];

  /** A counter for {@code slo}'s per-request objectives. */
  public GoodputCounter(Slo slo) {
    List<Slo.Objective> objectives = slo.perRequestObjectives();
    metrics = objectives.stream().map(Slo.Objective::metric).toArray(SloMetric[]::new);
    ops = objectives.stream().map(Slo.Objective::op).toArray(Slo.Op[]::new);
    thresholds = objectives.stream().mapToDouble(Slo.Objective::threshold).toArray();
  }

  /** Counts {@code m} when it is measured, succeeded and meets every per-request objective. */
  public void accept(RequestMetrics m) {
    if (m.phase() != Phase.MEASURED || !m.succeeded() || !meets(m)) {
      return;
    }
    int stage = m.stage();
    if (stage >= counts.length) {
      counts = Arrays.copyOf(counts, Math.max(stage + 1, 2 * counts.length));
    }
    counts[stage]++;
  }

  /** Whether {@code m} meets every per-request objective (phase and outcome aside). */
  public boolean meets(RequestMetrics m) {
    for (int i = 0; i < metrics.length; i++) {
      double v = value(m, metrics[i]);
      if (Double.isNaN(v)) {
        if (metrics[i] == SloMetric.TPOT || metrics[i] == SloMetric.TPS) {
          continue;
        }
        return false;
      }
      if (!ops[i].holds(v, thresholds[i])) {
        return false;
      }
    }
    return true;
  }

  /** Requests counted for the stage with index {@code stage}. */
  public long count(int stage) {
    return stage < counts.length ? counts[stage] : 0;
  }

  /** {@code m}'s value of a per-request metric in the metric's SLO unit (ms, tokens/s), NaN when none. */
  private static double value(RequestMetrics m, SloMetric metric) {
    return switch (metric) {
      case TTFT -> millis(m.ttftNanos());
      case TTFT_SCHED -> millis(m.ttftFromScheduledNanos());
      case E2E -> millis(m.e2eNanos());
      case E2E_SCHED -> millis(m.e2eFromScheduledNanos());
      case TPOT -> m.tpotNanos() / 1e6;
      case TPS -> m.decodeTokensPerSecond();
      default -> throw new IllegalArgumentException(metric.wireName() + " has no per-request value");
    };
  }

  private static double millis(long nanos) {
    return nanos == RequestMetrics.NONE ? Double.NaN : nanos / 1e6;
  }
}
