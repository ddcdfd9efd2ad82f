package dev.tokenmeter.core.analysis;

/**
 * The rows of a run comparison: one number per run and stage, and how it is tested. Percentile
 * rows of per-request metrics ({@link #metric()} non-null) are tested on units of requests: runs
 * or blocks of time ({@link ComparisonUnits}, {@link StageComparison}). ITL has no per-request value (it is per token, and tokens of one request are
 * not independent), so its rows are shown, not tested: TPOT is its per-request counterpart.
 */
public enum ComparedQuantity {
  TTFT_P50("TTFT p50", Metric.TTFT, 0.50, "ms", Direction.LOWER_IS_BETTER),
  TTFT_P99("TTFT p99", Metric.TTFT, 0.99, "ms", Direction.LOWER_IS_BETTER),
  TPOT_P50("TPOT p50", Metric.TPOT, 0.50, "ms", Direction.LOWER_IS_BETTER),
  TPOT_P99("TPOT p99", Metric.TPOT, 0.99, "ms", Direction.LOWER_IS_BETTER),
  ITL_P50("ITL p50", Metric.ITL, 0.50, "ms", Direction.LOWER_IS_BETTER),
  ITL_P99("ITL p99", Metric.ITL, 0.99, "ms", Direction.LOWER_IS_BETTER),
  E2E_P50("E2E p50", Metric.E2E, 0.50, "ms", Direction.LOWER_IS_BETTER),
  E2E_P99("E2E p99", Metric.E2E, 0.99, "ms", Direction.LOWER_IS_BETTER),
  DECODE_TPS_P50("decode TPS/user p50", Metric.DECODE_TPS, 0.50, "tokens/s", Direction.HIGHER_IS_BETTER),
  DECODE_TPS_P10("decode TPS/user p10", Metric.DECODE_TPS, 0.10, "tokens/s", Direction.HIGHER_IS_BETTER),
  OUTPUT_TPS("output tokens/s", null, Double.NaN, "tokens/s", Direction.HIGHER_IS_BETTER),
  REQUEST_RATE("requests/s", null, Double.NaN, "requests/s", Direction.HIGHER_IS_BETTER),
  ERROR_RATE("error rate", null, Double.NaN, "%", Direction.LOWER_IS_BETTER);

  private final String title;
  private final Metric metric;
  private final double quantile;
  private final String unit;
  private final Direction direction;

  ComparedQuantity(String title, Metric metric, double quantile, String unit, Direction direction) {
    this.title = title;
    this.metric = metric;
    this.quantile = quantile;
    this.unit = unit;
    this.direction = direction;
  }

  /** Row title for tables ({@code "TTFT p50"}). */
  public String title() {
    return title;
  }

  /** The per-request metric, null for run-level numbers (throughputs, error rate). */
  public Metric metric() {
    return metric;
  }

  /** The percentile as a fraction (0.99), NaN for run-level numbers. */
  public double quantile() {
    return quantile;
  }

  /** Unit shown ({@code "ms"}, {@code "tokens/s"}, {@code "%"}). */
  public String unit() {
    return unit;
  }

  public Direction direction() {
    return direction;
  }

  /** Snake-case key for JSON ({@code "ttft_p50"}). */
  public String key() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** Whether a larger value is better or worse. */
  public enum Direction {
    LOWER_IS_BETTER,
    HIGHER_IS_BETTER
  }

  /** Word for a significant increase of this quantity: "slower", "faster", "higher", ... */
  public String largerWord() {
    return switch (this) {
      case DECODE_TPS_P50, DECODE_TPS_P10 -> "faster";
      case OUTPUT_TPS, REQUEST_RATE -> "higher";
      case ERROR_RATE -> "more errors";
      default -> "slower";
    };
  }

  /** Word for a significant decrease. */
  public String smallerWord() {
    return switch (this) {
      case DECODE_TPS_P50, DECODE_TPS_P10 -> "slower";
      case OUTPUT_TPS, REQUEST_RATE -> "lower";
      case ERROR_RATE -> "fewer errors";
      default -> "faster";
    };
  }
}
