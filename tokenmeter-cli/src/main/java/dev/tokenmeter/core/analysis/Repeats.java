package dev.tokenmeter.core.analysis;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.commons.statistics.distribution.TDistribution;

/**
 * How much a run's headline numbers moved across repeats of the same stage ({@code --repeat N}):
 * per stage group and headline metric, the mean over the repeats, the sample standard deviation,
 * the coefficient of variation and a Student-t confidence interval of the mean. Immutable.
 *
 * <p>Definitions ({@code docs/METRICS.md}, "Repeats"): over the n repeats whose value is defined,
 * mean {@code m = Σx/n}; sample standard deviation {@code s = sqrt(Σ(x − m)² / (n − 1))}; CV
 * {@code s / |m|}; the interval {@code m ± t(1 − α/2, n − 1) · s / sqrt(n)} with {@code 1 − α} the
 * confidence. Each repeat counts once, whatever its request count: the interval is about how a
 * whole run would come out if run again, not about single requests.
 *
 * @param count repeats per stage ({@code --repeat})
 * @param confidence two-sided confidence level of the intervals, in (0, 1)
 * @param varySeed true when each repeat drew its own seed ({@code --vary-seed})
 * @param groups one per planned stage, in run order
 */
public record Repeats(int count, double confidence, boolean varySeed, List<Group> groups) {
  public Repeats {
    checkConfidence(confidence);
    groups = List.copyOf(groups);
  }

  /**
   * The repeats of one planned stage.
   *
   * @param group the planned stage's 0-based position (before repeats)
   * @param label the stage's label ({@code "c=25"})
   * @param stages the {@code StagePlan.index()} of each repeat that ran, in run order
   * @param estimates one per headline metric, every metric present
   */
  public record Group(int group, String label, List<Integer> stages, Map<Headline, Estimate> estimates) {
    public Group {
      Objects.requireNonNull(label, "label");
      stages = List.copyOf(stages);
      EnumMap<Headline, Estimate> copy = new EnumMap<>(Headline.class);
      copy.putAll(estimates);
      estimates = Collections.unmodifiableMap(copy);
    }

    /** The estimate of {@code h}. */
    public Estimate estimate(Headline h) {
      return estimates.get(h);
    }
  }

  /**
   * One metric over the repeats. NaN where undefined: the mean of no values; the deviation,
   * interval and CV of fewer than two; the CV of a zero mean.
   *
   * @param n repeats where the metric was defined (a p99 of no requests is not)
   * @param mean mean over them
   * @param stdDev sample standard deviation ({@code n − 1} in the denominator)
   * @param cv coefficient of variation {@code stdDev / |mean|}, a fraction
   * @param halfWidth half the confidence interval's width: {@code t · stdDev / sqrt(n)}
   */
  public record Estimate(int n, double mean, double stdDev, double cv, double halfWidth) {
    /** Lower end of the interval. */
    public double low() {
      return mean - halfWidth;
    }

    /** Upper end of the interval. */
    public double high() {
      return mean + halfWidth;
    }

    /**
     * The estimate over {@code values}, skipping NaN and infinite ones.
     *
     * @param confidence two-sided confidence level, in (0, 1)
     */
    public static Estimate of(double[] values, double confidence) {
      checkConfidence(confidence);
      // Shifted by the first value (the "shifted data" variance): identical values give exactly
      // mean = that value and deviation 0, where sum / n would leave a 1e-15 spread and a CV > 0.
      int n = 0;
      double pivot = Double.NaN;
      double sum = 0;
      double squares = 0;
      for (double v : values) {
        if (Double.isFinite(v)) {
          pivot = n == 0 ? v : pivot;
          n++;
          sum += v - pivot;
          squares += (v - pivot) * (v - pivot);
        }
      }
      if (n == 0) {
        return new Estimate(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
      }
      double mean = pivot + sum / n;
      if (n == 1) {
        return new Estimate(1, mean, Double.NaN, Double.NaN, Double.NaN);
      }
      double sd = Math.sqrt(Math.max(0, (squares - sum * sum / n) / (n - 1)));
      double cv = mean == 0 ? Double.NaN : sd / Math.abs(mean);
      double t = TDistribution.of(n - 1).inverseCumulativeProbability(0.5 + confidence / 2);
      return new Estimate(n, mean, sd, cv, t * sd / Math.sqrt(n));
    }
  }

  /** The headline metrics compared across repeats, with their {@code summary.json} names. */
  public enum Headline {
    TTFT_P50("ttft_p50_ms", "TTFT p50 ms"),
    TTFT_P99("ttft_p99_ms", "TTFT p99 ms"),
    TPOT_P50("tpot_p50_ms", "TPOT p50 ms"),
    TPOT_P99("tpot_p99_ms", "TPOT p99 ms"),
    ITL_P50("itl_p50_ms", "ITL p50 ms"),
    ITL_P99("itl_p99_ms", "ITL p99 ms"),
    E2E_P50("e2e_p50_ms", "E2E p50 ms"),
    E2E_P99("e2e_p99_ms", "E2E p99 ms"),
    DECODE_TPS_P50("decode_tps_p50", "user TPS p50"),
    DECODE_TPS_P10("decode_tps_p10", "user TPS p10"),
    OUTPUT_TPS("output_tokens_per_s", "output tok/s"),
    REQUEST_RATE("requests_per_s", "req/s"),
    ERROR_RATE("error_rate", "error rate");

    private final String wireName;
    private final String displayName;

    Headline(String wireName, String displayName) {
      this.wireName = wireName;
      this.displayName = displayName;
    }

    /** Name in {@code summary.json} ({@code repeats.groups[].metrics}). */
    public String wireName() {
      return wireName;
    }

    /** Name in the console table. */
    public String displayName() {
      return displayName;
    }

    /**
     * This metric's value in one stage, NaN when undefined. TTFT and E2E are the headline ones,
     * from the schedule in an open loop ({@link LatencyOrigin}). The error rate is failed / (completed
     * + failed) measured requests, a fraction; NaN when the stage measured none.
     */
    public double of(StageResult r) {
      LatencyOrigin from = LatencyOrigin.headlineOf(r.plan().load());
      return switch (this) {
        case TTFT_P50 -> r.metric(from.ttft()).p50();
        case TTFT_P99 -> r.metric(from.ttft()).p99();
        case TPOT_P50 -> r.metric(Metric.TPOT).p50();
        case TPOT_P99 -> r.metric(Metric.TPOT).p99();
        case ITL_P50 -> r.metric(Metric.ITL).p50();
        case ITL_P99 -> r.metric(Metric.ITL).p99();
        case E2E_P50 -> r.metric(from.e2e()).p50();
        case E2E_P99 -> r.metric(from.e2e()).p99();
        case DECODE_TPS_P50 -> r.metric(Metric.DECODE_TPS).p50();
        case DECODE_TPS_P10 -> r.metric(Metric.DECODE_TPS).p10();
        case OUTPUT_TPS -> r.throughput().outputTokensPerSecond();
        case REQUEST_RATE -> r.throughput().requestsPerSecond();
        case ERROR_RATE -> {
          long total = r.requests().completed() + r.requests().failed();
          yield total == 0 ? Double.NaN : (double) r.requests().failed() / total;
        }
      };
    }
  }

  /**
   * Aggregates the repeats of one planned stage.
   *
   * @param group the planned stage's position
   * @param runs its repeats' results, in run order, at least one
   * @param confidence two-sided confidence level, in (0, 1)
   */
  public static Group aggregate(int group, List<StageResult> runs, double confidence) {
    if (runs.isEmpty()) {
      throw new IllegalArgumentException("a group needs at least one run");
    }
    Map<Headline, Estimate> estimates = new EnumMap<>(Headline.class);
    for (Headline h : Headline.values()) {
      double[] values = new double[runs.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = h.of(runs.get(i));
      }
      estimates.put(h, Estimate.of(values, confidence));
    }
    List<Integer> indices = runs.stream().map(r -> r.plan().index()).toList();
    return new Group(group, runs.get(0).label(), indices, estimates);
  }

  private static void checkConfidence(double confidence) {
    if (!(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException("confidence must be in (0, 1), got " + confidence);
    }
  }
}
