package dev.tokenmeter.core.analysis;

import java.util.Locale;

/**
 * What an SLO objective can constrain ({@code --slo "ttft.p99<=800ms"}): a distribution of the
 * stage's successful measured requests (with a statistic), a stage throughput, or the error rate.
 * Names match {@code docs/METRICS.md} and the keys of {@code summary.json}.
 */
public enum SloMetric {
  /** {@code ttft_ms}: first token from the send. */
  TTFT("ttft", Kind.TIME, Metric.TTFT),
  /** {@code ttft_from_scheduled_ms}: first token from the schedule (open loop: includes queueing). */
  TTFT_SCHED("ttft_sched", Kind.TIME, Metric.TTFT_FROM_SCHEDULED),
  /** {@code tpot_ms}. */
  TPOT("tpot", Kind.TIME, Metric.TPOT),
  /** {@code itl_ms}: per-token ITL pooled over requests; stage-level only (no per-request value). */
  ITL("itl", Kind.TIME, Metric.ITL),
  /** {@code e2e_ms}. */
  E2E("e2e", Kind.TIME, Metric.E2E),
  /** {@code e2e_from_scheduled_ms}. */
  E2E_SCHED("e2e_sched", Kind.TIME, Metric.E2E_FROM_SCHEDULED),
  /** {@code decode_tps}: per-user decode tokens/s ({@code 1 / TPOT}); its slow tail is p10. */
  TPS("tps", Kind.SPEED, Metric.DECODE_TPS),
  /** {@code throughput.output_tokens_per_s}: aggregate output tokens/s of the stage. */
  OUTPUT_TPS("output_tps", Kind.STAGE_TOKENS, null),
  /** {@code throughput.requests_per_s}: completed measured requests per second. */
  REQUEST_RATE("request_rate", Kind.STAGE_REQUESTS, null),
  /** Failed measured requests as a percentage of all measured requests. */
  ERRORS("errors", Kind.PERCENT, null);

  /** What kind of value a metric is, which decides its units and whether it takes a statistic. */
  public enum Kind {
    /** A latency distribution: takes a statistic; units ms, s, us. */
    TIME,
    /** A speed distribution: takes a statistic; tokens/s. */
    SPEED,
    /** A stage's tokens per second: no statistic. */
    STAGE_TOKENS,
    /** A stage's requests per second: no statistic. */
    STAGE_REQUESTS,
    /** A percentage of measured requests: no statistic. */
    PERCENT;

    /** Whether the metric is a distribution, named with a statistic ({@code ttft.p99}). */
    public boolean distribution() {
      return this == TIME || this == SPEED;
    }
  }

  private final String wireName;
  private final Kind kind;
  private final Metric metric;

  SloMetric(String wireName, Kind kind, Metric metric) {
    this.wireName = wireName;
    this.kind = kind;
    this.metric = metric;
  }

  /** The name in an SLO spec ({@code "ttft_sched"}). */
  public String wireName() {
    return wireName;
  }

  public Kind kind() {
    return kind;
  }

  /** The recorded distribution behind a {@link Kind#distribution()} metric, else null. */
  public Metric metric() {
    return metric;
  }

  /**
   * Whether each request has its own value, so the objective can be judged per request for
   * goodput. ITL is pooled over all tokens of all requests; stage-level ones have no per-request
   * value either.
   */
  public boolean perRequest() {
    return kind.distribution() && this != ITL;
  }

  /** The unit thresholds and measured values are shown in: {@code ms}, {@code tok/s}, ... */
  public String unit() {
    return switch (kind) {
      case TIME -> "ms";
      case SPEED, STAGE_TOKENS -> "tok/s";
      case STAGE_REQUESTS -> "req/s";
      case PERCENT -> "%";
    };
  }

  /** The metric named {@code name} (case-insensitive; {@code throughput} is {@code output_tps}), or null. */
  public static SloMetric ofName(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    if (n.equals("throughput")) {
      return OUTPUT_TPS;
    }
    for (SloMetric m : values()) {
      if (m.wireName.equals(n)) {
        return m;
      }
    }
    return null;
  }
}
