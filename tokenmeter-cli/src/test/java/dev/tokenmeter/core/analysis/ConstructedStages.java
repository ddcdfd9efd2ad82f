package dev.tokenmeter.core.analysis;

import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.request.ErrorClass;
import java.util.EnumMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Stage results with hand-chosen numbers, for analysis tests: a 10 s window, the given
 * distributions, everything else empty. Test code.
 */
public final class ConstructedStages {
  private static final long S = 1_000_000_000L;

  private final StagePlan plan;
  private final Map<Metric, Distribution> metrics = new EnumMap<>(Metric.class);
  private double outputTps = Double.NaN;
  private double requestsPerSecond = Double.NaN;
  private long completed;
  private long failed;
  private long windowNanos = 10 * S;

  private ConstructedStages(StagePlan plan) {
    this.plan = plan;
  }

  /** Stage {@code index} at concurrency {@code c}. */
  public static ConstructedStages closed(int index, int c) {
    return new ConstructedStages(
        new StagePlan(index, new LoadModel.Closed(c, 0), new StopCondition.Duration(10 * S), 0, 0, index));
  }

  /** Stage {@code index} at {@code rate} requests/s. */
  public static ConstructedStages open(int index, double rate) {
    return new ConstructedStages(
        new StagePlan(index, new LoadModel.Open(rate, new Arrivals.Poisson(), OptionalInt.empty()),
            new StopCondition.Duration(10 * S), 0, 0, index));
  }

  /** A distribution whose every statistic is {@code v}, over {@code count} values. */
  public static Distribution flat(long count, double v) {
    return new Distribution(count, v, v, v, v, v, v, v, v, v, v, v);
  }

  /** A distribution with p10, p50 and p99 as given (lower stats = p10, upper = p99). */
  public static Distribution dist(long count, double p10, double p50, double p99) {
    return new Distribution(count, p10, p50, p10, p10, p10, p50, p99, p99, p99, p99, p99);
  }

  public ConstructedStages metric(Metric m, Distribution d) {
    metrics.put(m, d);
    return this;
  }

  /** Per-user decode TPS with the given p50 (p10 = 0.8 × p50), over the completed requests. */
  public ConstructedStages tps(double p50) {
    return metric(Metric.DECODE_TPS, dist(Math.max(1, completed), 0.8 * p50, p50, 1.2 * p50));
  }

  public ConstructedStages requests(long completed, long failed) {
    this.completed = completed;
    this.failed = failed;
    return this;
  }

  public ConstructedStages throughput(double outputTps, double requestsPerSecond) {
    this.outputTps = outputTps;
    this.requestsPerSecond = requestsPerSecond;
    return this;
  }

  /** A stage whose window never opened (length 0). */
  public ConstructedStages noWindow() {
    windowNanos = 0;
    return this;
  }

  /** A closed-loop stage of 9 completed requests whose conversations are {@code sessions} (null: none). */
  public static StageResult withSessions(Sessions sessions) {
    StageResult r = closed(0, 1).requests(9, 0).build();
    return new StageResult(r.plan(), r.label(), 0, r.stageLengthNanos(), r.window(), r.metrics(), Map.of(),
        r.throughput(), r.requests(), r.errors(), r.tokens(), r.finishes(), null, null, null, Map.of(), Map.of(),
        sessions);
  }

  public StageResult build() {
    StageResult.Window window =
        windowNanos > 0 ? new StageResult.Window(0, windowNanos, true) : new StageResult.Window(-1, -1, false);
    Map<ErrorClass, Long> errors = failed > 0 ? Map.of(ErrorClass.HTTP_5XX, failed) : Map.of();
    return new StageResult(
        plan, plan.load().label(), 0, windowNanos, window, metrics, Map.of(),
        new StageResult.Throughput(outputTps, Double.NaN, requestsPerSecond, Double.NaN, Double.NaN, 0, 0),
        new StageResult.RequestCounts(completed, failed, Map.of()),
        errors,
        new StageResult.TokenAccounting(Map.of(), 0, StageResult.PromptOverhead.none(),
            new StageResult.UsageVsTokenizer(null, 0, 0, Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN), 0, 0),
        StageResult.Finishes.NONE, null, null, null, Map.of(), Map.of());
  }
}
