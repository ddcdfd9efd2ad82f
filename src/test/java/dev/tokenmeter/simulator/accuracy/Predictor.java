package dev.tokenmeter.simulator.accuracy;

import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.engine.RequestSource;
import dev.tokenmeter.core.engine.Timeouts;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Load;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Point;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Precision;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.simulator.virtual.Simulation;
import java.util.OptionalInt;

/**
 * Runs one published setup through the engine model in virtual time, the path {@code tokenmeter
 * simulate} takes ({@link Simulation}: bench's stage runner over the batch engine). Stateless.
 *
 * <pre>
 * design notes
 * - Every request has exactly the published input and output lengths (ignore_eos), no network.
 * - CLOSED points (genai-perf/AIPerf at a fixed concurrency): a closed loop of `concurrency` users
 *   and the engine's defaults (256 sequences, 8,192 tokens per iteration); the window holds the
 *   first 3 × concurrency requests, so requests that queue for KV cache are in it.
 * - STATIC points (one batch run to completion: gptSessionBenchmark, benchmark_latency): the same
 *   loop, the window holding exactly the first batch; max_num_seqs = the batch and the token
 *   budget = batch × input (the static batch's context phase is one step), at least 8,192.
 * - Efficiency factors (MFU, MBU, overheads) come from the caller; every other knob is the
 *   EngineConfig default.
 * </pre>
 */
final class Predictor {
  private static final Timeouts NONE = new Timeouts(0, 0, 0);
  private static final int CLOSED_COHORTS = 3;

  private Predictor() {}

  /**
   * MFU, MBU, the fixed per-iteration overhead and the per-sequence one: the factors the study
   * calibrates.
   */
  record Efficiency(double mfu, double mbu, long overheadNanos, long perSequenceNanos) {
    /** The factors {@link EngineConfig#of} starts from. */
    static Efficiency defaults() {
      EngineConfig c = EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm"));
      return new Efficiency(
          c.mfu(), c.mbu(), c.iterationOverheadNanos(), c.perSequenceOverheadNanos());
    }
  }

  /**
   * What the simulation predicts for a point.
   *
   * @param ttftMs mean TTFT of the window's requests
   * @param tpotMs mean TPOT (NaN for one-token outputs)
   * @param outputTps output tokens per second over the window, all GPUs
   * @param windowSeconds the window's length: for a static batch, the batch's latency
   */
  record Prediction(double ttftMs, double tpotMs, double outputTps, double windowSeconds) {}

  /** The deployment a point describes, with these efficiency factors. */
  static EngineConfig config(Point p, Efficiency e) {
    EngineConfig c =
        EngineConfig.of(Presets.model(p.model()), Presets.gpu(p.gpu()))
            .withTensorParallel(p.tensorParallel())
            .withPrecision(Precision.parse(p.weights()), Precision.parse(p.kvCache()))
            .withEfficiency(e.mfu(), e.mbu(), e.overheadNanos(), e.perSequenceNanos());
    if (p.load() == Load.STATIC) {
      int budget = Math.max(c.maxBatchedTokens(), p.concurrency() * p.inputTokens());
      c = c.withLimits(Math.max(1, p.concurrency()), budget);
    }
    return c;
  }

  /** Simulates the point; deterministic. */
  static Prediction predict(Point p, Efficiency e) {
    Simulation sim = new Simulation(config(p, e), NONE, p.outputTokens(), (t, m) -> {}, null);
    int cohorts = p.load() == Load.STATIC ? 1 : CLOSED_COHORTS;
    StagePlan plan =
        new StagePlan(
            0,
            new LoadModel.Closed(p.concurrency(), 0),
            new StopCondition.Requests((long) cohorts * p.concurrency()),
            0,
            0,
            1);
    RequestSource source =
        id ->
            new RequestSpec(
                id, new Prompt.Text("p"), p.inputTokens(), true, OptionalInt.of(p.outputTokens()));
    StageResult r = sim.runStage(plan, source);
    if (!r.errors().isEmpty()) {
      throw new IllegalStateException(p.id() + ": simulated requests failed: " + r.errors());
    }
    return new Prediction(
        r.metric(Metric.TTFT).mean(),
        p.outputTokens() > 1 ? r.metric(Metric.TPOT).mean() : Double.NaN,
        r.throughput().outputTokensPerSecond(),
        r.window().lengthNanos() / 1e9);
  }
}
