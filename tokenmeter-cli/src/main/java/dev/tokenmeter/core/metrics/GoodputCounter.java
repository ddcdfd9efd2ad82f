package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.analysis.LatencyOrigin;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.core.slo.SloMetric;
import java.util.Arrays;
import java.util.List;

/**
 * Counts, per stage, the measured requests that succeeded and met every per-request objective of an
 * SLO: goodput's numerator ({@code docs/METRICS.md}, "Goodput"). A stage-level percentile objective
 * ({@code ttft.p99<=800ms}) is judged per request by its threshold ({@code ttft <= 800 ms}), as
 * DistServe and vLLM's {@code --goodput} do; ITL, throughput and error objectives have no
 * per-request value and do not count here.
 *
 * <p>A bare {@code ttft} or {@code e2e} objective is the headline latency, whose origin follows the
 * stage's load model ({@link LatencyOrigin}); a request does not know its stage's load, so each
 * request is judged under both origins and {@link #count(int, LoadModel)} picks the stage's.
 *
 * <p>A request with no value for a metric that needs two tokens (TPOT, TPS: one output token, or
 * every token in one read) meets that objective, as vLLM counts a one-token request's TPOT as 0; a
 * succeeded request with no first token or end time (which should not happen) does not meet TTFT or
 * E2E objectives.
 *
 * <p><b>Threading.</b> Single writer: {@link #accept} from the thread that ends requests (the event
 * loop); {@link #count(int, LoadModel)} after the stage ended, ordered after the writes by the stage's completion.
 * Cost per request: one comparison per per-request objective, no allocation.
 */
public final class GoodputCounter {
  private final SloMetric[] metrics;
  private final Slo.Op[] ops;
  private final double[] thresholds;
  /** Each objective's turn range, null where it is about every request. */
  private final dev.tokenmeter.core.analysis.TurnRange[] turns;
  /** Per origin ({@link LatencyOrigin#ordinal()}), per stage index: requests that met everything. */
  private final long[][] counts = new long[LatencyOrigin.values().length][8];

  /** A counter for {@code slo}'s per-request objectives. */
  public GoodputCounter(Slo slo) {
    List<Slo.Objective> objectives = slo.perRequestObjectives();
    metrics = objectives.stream().map(Slo.Objective::metric).toArray(SloMetric[]::new);
    ops = objectives.stream().map(Slo.Objective::op).toArray(Slo.Op[]::new);
    thresholds = objectives.stream().mapToDouble(Slo.Objective::threshold).toArray();
    turns = objectives.stream().map(Slo.Objective::turns).toArray(dev.tokenmeter.core.analysis.TurnRange[]::new);
  }

  /** Counts {@code m} when it is measured, succeeded and meets every per-request objective. */
  public void accept(RequestMetrics m) {
    if (m.phase() != Phase.MEASURED || !m.succeeded()) {
      return;
    }
    for (LatencyOrigin origin : LatencyOrigin.values()) {
      if (meets(m, origin)) {
        long[] c = counts[origin.ordinal()];
        if (m.stage() >= c.length) {
          c = Arrays.copyOf(c, Math.max(m.stage() + 1, 2 * c.length));
          counts[origin.ordinal()] = c;
        }
        c[m.stage()]++;
      }
    }
  }

  /**
   * Whether {@code m} meets every per-request objective (phase and outcome aside), with the
   * headline {@code ttft} and {@code e2e} measured from {@code origin}.
   */
  public boolean meets(RequestMetrics m, LatencyOrigin origin) {
    for (int i = 0; i < metrics.length; i++) {
      if (turns[i] != null && !turns[i].contains(m.turn())) {
        continue; // an objective about other turns (or about conversations, for a request outside one)
      }
      double v = value(m, metrics[i], origin);
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

  /** Requests counted for the stage with index {@code stage}, which ran under {@code load}. */
  public long count(int stage, LoadModel load) {
    long[] c = counts[LatencyOrigin.headlineOf(load).ordinal()];
    return stage < c.length ? c[stage] : 0;
  }

  /** {@code m}'s value of a per-request metric in the metric's SLO unit (ms, tokens/s), NaN when none. */
  private static double value(RequestMetrics m, SloMetric metric, LatencyOrigin origin) {
    return switch (metric) {
      case TTFT -> value(m, origin == LatencyOrigin.SCHEDULED ? SloMetric.TTFT_SCHEDULED : SloMetric.TTFT_SENT, origin);
      case E2E -> value(m, origin == LatencyOrigin.SCHEDULED ? SloMetric.E2E_SCHEDULED : SloMetric.E2E_SENT, origin);
      case TTFT_SENT -> millis(m.ttftNanos());
      case TTFT_SCHEDULED -> millis(m.ttftFromScheduledNanos());
      case E2E_SENT -> millis(m.e2eNanos());
      case E2E_SCHEDULED -> millis(m.e2eFromScheduledNanos());
      case TPOT -> m.tpotNanos() / 1e6;
      case TPS -> m.decodeTokensPerSecond();
      default -> throw new IllegalArgumentException(metric.wireName() + " has no per-request value");
    };
  }

  private static double millis(long nanos) {
    return nanos == RequestMetrics.NONE ? Double.NaN : nanos / 1e6;
  }
}
