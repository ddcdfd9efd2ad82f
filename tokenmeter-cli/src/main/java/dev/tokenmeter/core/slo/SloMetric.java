package dev.tokenmeter.core.slo;

import dev.tokenmeter.core.analysis.LatencyOrigin;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.load.LoadModel;
import java.util.Locale;

/**
 * What an SLO objective can constrain ({@code --slo "ttft.p99<=800ms"}): a distribution of the
 * stage's successful measured requests (with a statistic), a stage throughput, or the error rate.
 * Names match {@code docs/METRICS.md} and the keys of {@code summary.json}.
 */
public enum SloMetric {
  /**
   * The headline TTFT: from the schedule in an open loop, from the send in a closed one ({@link
   * LatencyOrigin#headlineOf}); the user's wait for the first token.
   */
  TTFT("ttft", Kind.TIME, null),
  /** {@code ttft_ms}: first token from the send, whatever the load model. */
  TTFT_SENT("ttft_sent", Kind.TIME, Metric.TTFT),
  /** {@code ttft_from_scheduled_ms}: first token from the schedule (includes queueing), always. */
  TTFT_SCHEDULED("ttft_scheduled", Kind.TIME, Metric.TTFT_FROM_SCHEDULED),
  /** {@code tpot_ms}. */
  TPOT("tpot", Kind.TIME, Metric.TPOT),
  /** {@code itl_ms}: per-token ITL pooled over requests; stage-level only (no per-request value). */
  ITL("itl", Kind.TIME, Metric.ITL),
  /** {@code itl_chunk_ms}: every gap between chunks, one value per gap; stage-level only. */
  ITL_CHUNK("itl_chunk", Kind.TIME, Metric.ITL_CHUNK),
  /** The headline E2E: from the schedule in an open loop, from the send in a closed one. */
  E2E("e2e", Kind.TIME, null),
  /** {@code e2e_ms}: from the send, whatever the load model. */
  E2E_SENT("e2e_sent", Kind.TIME, Metric.E2E),
  /** {@code e2e_from_scheduled_ms}: from the schedule, always. */
  E2E_SCHEDULED("e2e_scheduled", Kind.TIME, Metric.E2E_FROM_SCHEDULED),
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

  /**
   * The recorded distribution behind a {@link Kind#distribution()} metric under {@code load}: the
   * headline {@link #TTFT} and {@link #E2E} follow the load model ({@link LatencyOrigin}); null for a
   * stage-level metric.
   */
  public Metric metricUnder(LoadModel load) {
    return switch (this) {
      case TTFT -> LatencyOrigin.headlineOf(load).ttft();
      case E2E -> LatencyOrigin.headlineOf(load).e2e();
      default -> metric;
    };
  }

  /** Whether the recorded distribution depends on the load model ({@link #TTFT}, {@link #E2E}). */
  public boolean headline() {
    return this == TTFT || this == E2E;
  }

  /**
   * Whether the metric is recorded by conversation turn ({@link dev.tokenmeter.core.analysis.Sessions}), so an objective may
   * name a turn range ({@code ttft.p99[turn>=4]}): TTFT (headline, from the send, from the
   * schedule) and TPOT.
   */
  public boolean byTurn() {
    return this == TTFT || this == TTFT_SENT || this == TTFT_SCHEDULED || this == TPOT;
  }

  /**
   * Whether each request has its own value, so the objective can be judged per request for
   * goodput. ITL is pooled over all tokens of all requests; stage-level ones have no per-request
   * value either.
   */
  public boolean perRequest() {
    return kind.distribution() && this != ITL && this != ITL_CHUNK;
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

  /**
   * The metric named {@code name}, or null. Case-insensitive; {@code throughput} is {@code
   * output_tps}, and the older {@code ttft_sched}, {@code e2e_sched} are {@code ttft_scheduled},
   * {@code e2e_scheduled}.
   */
  public static SloMetric ofName(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    switch (n) {
      case "throughput" -> {
        return OUTPUT_TPS;
      }
      case "ttft_sched" -> {
        return TTFT_SCHEDULED;
      }
      case "e2e_sched" -> {
        return E2E_SCHEDULED;
      }
      default -> { }
    }
    for (SloMetric m : values()) {
      if (m.wireName.equals(n)) {
        return m;
      }
    }
    return null;
  }
}
