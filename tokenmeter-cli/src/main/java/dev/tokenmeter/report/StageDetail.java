package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.Distribution;
import java.util.List;

/**
 * What a saved stage holds beyond its headline numbers, read back from {@code stages[]} of a
 * {@code summary.json} for reports that draw it (report.html): the load, the measurement window,
 * the steady-state sentence, the client's health and the per-second series. Missing numbers are
 * NaN; a field absent from an older file reads as NaN, empty or null. Immutable apart from the
 * series arrays, which must not be modified.
 *
 * @param loadModel {@code "closed"} or {@code "open"}; null when unknown
 * @param concurrency closed loop: virtual users; 0 for an open loop
 * @param ratePerSecond open loop: requests per second; NaN for a closed loop
 * @param windowStartSeconds window start from the stage start; NaN when the window never began
 * @param windowEndSeconds window end from the stage start; NaN when the window never began
 * @param windowComplete whether the window ran its full planned length
 * @param steadyStateReason the steady-state verdict in words; null when absent
 * @param wordsPerOutputToken output words / output tokens measured on this stage's text ({@code
 *     tokens.words_per_output_token}); NaN when the file does not have it
 * @param health {@code client_health}; null when absent
 * @param series {@code time_series}; null when absent
 * @param cost {@code cost}: what the stage costs under the run's pricing; null without pricing
 * @param tpotUndefined {@code requests.tpot_undefined}: completed measured requests with no TPOT
 *     (fewer than 2 tokens, or all in one read); -1 when the file does not have it
 * @param server {@code server}: the server's own metrics over the stage; null when absent
 * @param gpu {@code gpu}: the GPUs' power and energy over the stage; null when absent
 * @param sessions {@code sessions}: the stage's conversations ({@code bench --turns}); null when absent
 * @param completion {@code completion}: the stage's code-completion traffic ({@code --profile
 *     completion}); null when absent
 */
public record StageDetail(
    String loadModel,
    int concurrency,
    double ratePerSecond,
    double windowStartSeconds,
    double windowEndSeconds,
    boolean windowComplete,
    String steadyStateReason,
    double wordsPerOutputToken,
    Health health,
    Series series,
    Cost.StageCost cost,
    long tpotUndefined,
    dev.tokenmeter.scrape.ServerStage server,
    dev.tokenmeter.scrape.GpuStage gpu,
    SavedSessions sessions,
    SavedCompletion completion) {

  /** Without code-completion figures. */
  public StageDetail(String loadModel, int concurrency, double ratePerSecond, double windowStartSeconds,
      double windowEndSeconds, boolean windowComplete, String steadyStateReason, double wordsPerOutputToken,
      Health health, Series series, Cost.StageCost cost, long tpotUndefined, dev.tokenmeter.scrape.ServerStage server,
      dev.tokenmeter.scrape.GpuStage gpu, SavedSessions sessions) {
    this(loadModel, concurrency, ratePerSecond, windowStartSeconds, windowEndSeconds, windowComplete,
        steadyStateReason, wordsPerOutputToken, health, series, cost, tpotUndefined, server, gpu, sessions, null);
  }

  /** Without GPU figures and sessions. */
  public StageDetail(
      String loadModel,
      int concurrency,
      double ratePerSecond,
      double windowStartSeconds,
      double windowEndSeconds,
      boolean windowComplete,
      String steadyStateReason,
      double wordsPerOutputToken,
      Health health,
      Series series,
      Cost.StageCost cost,
      long tpotUndefined,
      dev.tokenmeter.scrape.ServerStage server) {
    this(loadModel, concurrency, ratePerSecond, windowStartSeconds, windowEndSeconds, windowComplete,
        steadyStateReason, wordsPerOutputToken, health, series, cost, tpotUndefined, server, null, null, null);
  }


  /** No detail: a stage built from headline numbers. */
  public static final StageDetail NONE =
      new StageDetail(null, 0, Double.NaN, Double.NaN, Double.NaN, false, null, Double.NaN, null, null);

  /** Without cost. */
  public StageDetail(
      String loadModel,
      int concurrency,
      double ratePerSecond,
      double windowStartSeconds,
      double windowEndSeconds,
      boolean windowComplete,
      String steadyStateReason,
      double wordsPerOutputToken,
      Health health,
      Series series) {
    this(loadModel, concurrency, ratePerSecond, windowStartSeconds, windowEndSeconds, windowComplete,
        steadyStateReason, wordsPerOutputToken, health, series, null, -1, null);
  }

  /** Whether the stage ran a closed loop (virtual users) rather than an open one (a rate). */
  public boolean closed() {
    return "closed".equals(loadModel);
  }

  /**
   * {@code client_health}: the client watching itself. Fractions are of one core or of all cores
   * (0.5 = 50%), NaN when not measured (simulated runs); {@code availableProcessors} the CPUs the
   * client's JVM could use, 0 when unknown.
   */
  public record Health(
      boolean bottleneck,
      List<String> reasons,
      Distribution sendLagMillis,
      Distribution loopLagMillis,
      double cpuFractionOfOneCore,
      double cpuFractionOfAllCores,
      double loopThreadCpuFraction,
      double outputTokensPerCpuSecond,
      int availableProcessors) {
    public Health {
      reasons = List.copyOf(reasons);
    }

    /** As read from a summary.json that does not say how many CPUs the client had (0: unknown). */
    public Health(boolean bottleneck, List<String> reasons, Distribution sendLagMillis,
        Distribution loopLagMillis, double cpuFractionOfOneCore, double cpuFractionOfAllCores,
        double loopThreadCpuFraction, double outputTokensPerCpuSecond) {
      this(bottleneck, reasons, sendLagMillis, loopLagMillis, cpuFractionOfOneCore, cpuFractionOfAllCores,
          loopThreadCpuFraction, outputTokensPerCpuSecond, 0);
    }

    /** Whether the client's JVM could use a single CPU, its JIT and collector sharing the event loop's. */
    public boolean oneCpu() {
      return availableProcessors == 1;
    }
  }

  /**
   * {@code time_series}: one value per {@code intervalSeconds} from the stage start. Arrays have one
   * element per interval; {@code meanInFlight} and {@code meanTtftMillis} are NaN where undefined.
   */
  public record Series(
      double intervalSeconds,
      double stageLengthSeconds,
      List<PhaseSpan> phases,
      long[] outputTokens,
      long[] completed,
      long[] failed,
      double[] meanInFlight,
      double[] meanTtftMillis) {
    public Series {
      phases = List.copyOf(phases);
    }
  }

  /** One phase ({@code warmup}, {@code measured}, {@code cooldown}) in seconds from the stage start. */
  public record PhaseSpan(String phase, double startSeconds, double endSeconds) {}
}
