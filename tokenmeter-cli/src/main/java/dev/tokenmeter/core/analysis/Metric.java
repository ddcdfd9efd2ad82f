package dev.tokenmeter.core.analysis;

/**
 * The distributions a stage records, one HdrHistogram each, with the unit the histogram holds and
 * the unit reports show. Definitions are the measurement contract of docs/METRICS.md; see {@code
 * docs/METRICS.md}.
 *
 * <p>{@link #wireName()} names the histogram in {@code summary.json} ({@code stages[].histograms});
 * {@link #reportKey()} names its distribution ({@code stages[].metrics}), with the report unit as a
 * suffix where it is a time.
 */
public enum Metric {
  /** {@code firstToken − sent}. */
  TTFT("ttft", Unit.NANOSECONDS),
  /** {@code firstToken − scheduled}: includes client-side queueing, free of coordinated omission. */
  TTFT_FROM_SCHEDULED("ttft_from_scheduled", Unit.NANOSECONDS),
  /** Time to first content: {@code firstContent − sent} (after a reasoning model's thinking). */
  TTFC("ttfc", Unit.NANOSECONDS),
  /** {@code (lastToken − firstToken) / (n − 1)}, for {@code n ≥ 2}. */
  TPOT("tpot", Unit.NANOSECONDS),
  /** Inter-token latency per token: each chunk gap split evenly over the chunk's tokens. */
  ITL("itl", Unit.NANOSECONDS),
  /** Inter-chunk gap: every gap between consecutive text chunks, one value per gap. */
  ITL_CHUNK("itl_chunk", Unit.NANOSECONDS),
  /** {@code done − sent}. */
  E2E("e2e", Unit.NANOSECONDS),
  /** {@code done − scheduled}. */
  E2E_FROM_SCHEDULED("e2e_from_scheduled", Unit.NANOSECONDS),
  /** Per-request decode speed {@code 1 / TPOT}, in milli-tokens per second. */
  DECODE_TPS("decode_tps", Unit.MILLI_TOKENS_PER_SECOND),
  /** Output tokens per request ({@code n}). */
  OUTPUT_TOKENS("output_tokens", Unit.TOKENS),
  /** Prompt tokens per request: {@code usage.prompt_tokens}, else the client's count. */
  INPUT_TOKENS("input_tokens", Unit.TOKENS),
  /** TCP (and TLS) connect time of requests that opened a new connection. */
  CONNECT("connect", Unit.NANOSECONDS),
  /** {@code sent − scheduled}: dispatch lateness plus connect plus writing the request. */
  SCHEDULED_TO_SENT("scheduled_to_sent", Unit.NANOSECONDS),
  /** Client self-watch: how late the engine began requests versus their schedule. */
  SEND_LAG("send_lag", Unit.NANOSECONDS),
  /** Client self-watch: how late the event loop ran a task versus when it was due. */
  LOOP_LAG("loop_lag", Unit.NANOSECONDS);

  private final String wireName;
  private final Unit unit;

  Metric(String wireName, Unit unit) {
    this.wireName = wireName;
    this.unit = unit;
  }

  /** Snake-case name of the histogram ({@code "ttft"}). */
  public String wireName() {
    return wireName;
  }

  /** Unit of the values recorded in the histogram. */
  public Unit unit() {
    return unit;
  }

  /** Name of the distribution in reports: {@code "ttft_ms"}, {@code "decode_tps"}. */
  public String reportKey() {
    return unit == Unit.NANOSECONDS ? wireName + "_ms" : wireName;
  }

  /** The metric whose {@link #wireName()} is {@code name}. */
  public static Metric ofWireName(String name) {
    for (Metric m : values()) {
      if (m.wireName.equals(name)) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown metric " + name);
  }

  /** What a histogram's integer values count, and how to show them. */
  public enum Unit {
    /** Nanoseconds, shown as milliseconds. */
    NANOSECONDS("ns", "ms", 1e6),
    /** Milli-tokens per second (3 decimals kept as integers), shown as tokens per second. */
    MILLI_TOKENS_PER_SECOND("milli_tokens_per_s", "tokens_per_s", 1e3),
    /** Tokens. */
    TOKENS("tokens", "tokens", 1);

    private final String wireName;
    private final String reportUnit;
    private final double perReportUnit;

    Unit(String wireName, String reportUnit, double perReportUnit) {
      this.wireName = wireName;
      this.reportUnit = reportUnit;
      this.perReportUnit = perReportUnit;
    }

    /** Name of the recorded unit in JSON ({@code "ns"}). */
    public String wireName() {
      return wireName;
    }

    /** Name of the unit reports show ({@code "ms"}). */
    public String reportUnit() {
      return reportUnit;
    }

    /** How many recorded units make one report unit: divide by it to convert ({@code 1e6}). */
    public double perReportUnit() {
      return perReportUnit;
    }

    /** The unit whose {@link #wireName()} is {@code name}. */
    public static Unit ofWireName(String name) {
      for (Unit u : values()) {
        if (u.wireName.equals(name)) {
          return u;
        }
      }
      throw new IllegalArgumentException("unknown unit " + name);
    }
  }
}
