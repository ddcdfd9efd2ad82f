package dev.tokenmeter.simulator.accuracy;

import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.loadgen.Timeouts;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.simulator.SpecFiles;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Load;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Point;
import dev.tokenmeter.simulator.engine.CostTotals;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.EngineProfile;
import dev.tokenmeter.simulator.engine.GpuSpec;
import dev.tokenmeter.simulator.engine.ModelSpec;
import dev.tokenmeter.simulator.engine.Parallelism;
import dev.tokenmeter.simulator.engine.Platform;
import dev.tokenmeter.simulator.engine.Precision;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.simulator.engine.Variation;
import dev.tokenmeter.simulator.virtual.Simulation;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.SplittableRandom;

/**
 * Runs one published setup through the engine model in virtual time, the path {@code tokenmeter
 * simulate} takes ({@link Simulation}: bench's stage runner over the batch engine). Stateless.
 *
 * <pre>
 * design notes
 * - Every request has the published input and output lengths (ignore_eos), no network. Uniform
 *   lengths are drawn per request from a seeded stream, the same for every run of a point.
 * - CLOSED (genai-perf, AIPerf, vllm bench serve at a max concurrency): a closed loop of
 *   `concurrency` users sending the source's number of requests (10 per user when it does not say),
 *   every one measured: the run starts with every user's first request at once, as the real run
 *   does, and that burst weighs in the means as much as it does in theirs.
 * - STATIC (one batch run to completion: gptSessionBenchmark, benchmark_latency): the same loop,
 *   the window holding exactly the first batch; max_num_seqs = the batch and the token budget =
 *   batch × input (the static batch's context phase is one step), at least the profile's.
 * - OFFLINE (trtllm-bench throughput, bench_serving at an infinite rate): every request at once
 *   under the profile's limits, the window ending with the last: throughput includes the ramp-down
 *   the source's includes. At most OFFLINE_CAP requests are simulated (the source's 30,000 short
 *   ones would take seconds; the tail's share is small either way).
 * - POISSON: `requests` (at most POISSON_CAP) arriving at `rate` per second.
 * - The engine profile is the source's; efficiency factors and overheads come from the caller. A
 *   point that names the KV-cache blocks its run configured (kv_cache_blocks) gets that cache, one
 *   that names data-parallel attention (dp_attention) or a token budget (max_batched_tokens) those.
 * </pre>
 */
final class Predictor {
  static final int CLOSED_COHORTS = 10;
  static final int OFFLINE_CAP = 3000;
  static final int POISSON_CAP = 1200;
  private static final Timeouts NONE = new Timeouts(0, 0, 0);

  private Predictor() {}

  /**
   * What the simulation predicts for a point, and what its iterations were made of.
   *
   * @param ttftMs mean TTFT of the window's requests
   * @param tpotMs mean TPOT (NaN for one-token outputs)
   * @param outputTps output tokens per second over the window, all GPUs
   * @param windowSeconds the window's length: for a static batch, the batch's latency
   * @param costs where the engine's time went over the run
   */
  record Prediction(
      double ttftMs,
      double ttftP50Ms,
      double ttftP99Ms,
      double tpotMs,
      double tpotP99Ms,
      double itlP50Ms,
      double outputTps,
      double windowSeconds,
      CostTotals costs) {}

  /** The model a point names: a preset, else a spec file in accuracy/specs. */
  static ModelSpec model(String id) {
    return Presets.models().stream().anyMatch(m -> m.id().equals(id))
        ? Presets.model(id)
        : SpecFiles.readModel(spec(id));
  }

  /** The GPU a point names: a preset, else a spec file in accuracy/specs. */
  static GpuSpec gpu(String id) {
    return Presets.gpus().stream().anyMatch(g -> g.id().equals(id))
        ? Presets.gpu(id)
        : SpecFiles.readGpu(spec(id));
  }

  private static Path spec(String id) {
    try {
      return Path.of(Objects.requireNonNull(
          Predictor.class.getResource("/accuracy/specs/" + id + ".json"), id).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The software stack the point's GPU runs. */
  static Platform platform(Point p) {
    return Platform.of(gpu(p.gpu()));
  }

  /**
   * The deployment a point describes, served by {@code profile} with the factors of {@code f}: the
   * profile's overheads plus its platform's.
   */
  static EngineConfig config(Point p, EngineProfile profile, FitParams f) {
    EngineProfile fitted = f.profile(profile);
    int index = FitParams.index(profile);
    Platform platform = platform(p);
    if (p.kvCacheBlocks() > 0) {
      // the run's block count as a share of the memory, half a block over so that it floors to it
      ModelSpec m = model(p.model());
      double block = m.kvBytesPerTokenPerGpu(Precision.parse(p.kvCache()), p.tensorParallel())
          * profile.blockTokens();
      fitted = fitted.withKvMemoryShare((p.kvCacheBlocks() + 0.5) * block / gpu(p.gpu()).memoryBytes());
    }
    EngineConfig c =
        EngineConfig.of(model(p.model()), gpu(p.gpu()), fitted)
            .withTensorParallel(p.tensorParallel())
            .withPrecision(Precision.parse(p.weights()), Precision.parse(p.kvCache()))
            .withEfficiency(f.mfu(), f.mbu(), f.iterationOn(index, platform),
                f.perSequenceOn(index, platform))
            .withOverlapExponent(f.overlap());
    if (p.dataParallelAttention() > 1) {
      c = c.withParallelism(new Parallelism(p.dataParallelAttention(), 1));
    }
    if (p.maxBatchedTokens() > 0) {
      c = c.withLimits(c.maxNumSeqs(), p.maxBatchedTokens());
    }
    if (p.load() == Load.STATIC) {
      int budget = Math.max(c.maxBatchedTokens(), p.concurrency() * p.inputTokens());
      c = c.withLimits(Math.max(1, p.concurrency()), budget);
    }
    return c;
  }

  /** Simulates the point on the engine directly ({@link EngineRun}); deterministic. */
  static Prediction predict(Point p, EngineProfile profile, FitParams f) {
    EngineConfig c = config(p, profile, f);
    java.util.function.LongUnaryOperator lengths = id -> {
      SplittableRandom random = new SplittableRandom(0x5eedL * 31 + id);
      long input = p.inputTokensMin() + random.nextInt(p.inputTokens() - p.inputTokensMin() + 1);
      long output = p.outputTokensMin() + random.nextInt(p.outputTokens() - p.outputTokensMin() + 1);
      return input << 32 | output;
    };
    EngineRun.Result r = switch (p.load()) {
      case CLOSED -> EngineRun.closed(c, p.concurrency(), closedRequests(p), lengths);
      case STATIC -> EngineRun.closed(c, p.concurrency(), p.concurrency(), lengths);
      case OFFLINE -> {
        int n = Math.min(p.requests(), OFFLINE_CAP);
        yield EngineRun.closed(c, n, n, lengths);
      }
      case POISSON -> EngineRun.poisson(c, p.ratePerSecond(), Math.min(p.requests(), POISSON_CAP),
          1, lengths);
    };
    return new Prediction(r.ttftMean(), r.ttftP50(), r.ttftP99(), r.tpotMean(), r.tpotP99(),
        r.itlP50(), r.outputTps(), r.windowSeconds(), r.costs());
  }

  /**
   * Simulates the point as {@code tokenmeter simulate} does ({@link Simulation}: bench's stage
   * runner over the engine), for the check that {@link #predict} measures the same.
   */
  static Prediction predictViaSimulation(Point p, EngineProfile profile, FitParams f) {
    return predictViaSimulation(p, profile, f, Variation.NONE);
  }

  /** As {@link #predictViaSimulation(Point, EngineProfile, FitParams)}, the engine varying. */
  static Prediction predictViaSimulation(Point p, EngineProfile profile, FitParams f, Variation v) {
    Simulation sim =
        new Simulation(config(p, profile, f), NONE, p.outputTokens(), (t, m) -> {}, null, 0, v);
    StageResult r = sim.runStage(plan(p), source(p));
    if (!r.errors().isEmpty()) {
      throw new IllegalStateException(p.id() + ": simulated requests failed: " + r.errors());
    }
    Distribution ttft = r.metric(Metric.TTFT);
    Distribution tpot = r.metric(Metric.TPOT);
    boolean decodes = p.outputTokens() > 1;
    return new Prediction(
        ttft.mean(), ttft.p50(), ttft.p99(),
        decodes ? tpot.mean() : Double.NaN,
        decodes ? tpot.p99() : Double.NaN,
        decodes ? r.metric(Metric.ITL).p50() : Double.NaN,
        r.throughput().outputTokensPerSecond(),
        r.window().lengthNanos() / 1e9,
        sim.endpoint().costs());
  }

  private static StagePlan plan(Point p) {
    return switch (p.load()) {
      case CLOSED -> closed(p.concurrency(), closedRequests(p));
      case STATIC -> closed(p.concurrency(), p.concurrency());
      case OFFLINE -> {
        int n = Math.min(p.requests(), OFFLINE_CAP);
        yield closed(n, n);
      }
      case POISSON -> new StagePlan(0,
          new LoadModel.Open(p.ratePerSecond(), new Arrivals.Poisson(), OptionalInt.empty()),
          new StopCondition.Requests(Math.min(p.requests(), POISSON_CAP)), 0, 0, 1);
    };
  }

  /** The source's request count when it states one, else CLOSED_COHORTS per user. */
  static int closedRequests(Point p) {
    return p.requests() > 0 ? p.requests() : CLOSED_COHORTS * p.concurrency();
  }

  private static StagePlan closed(int users, long requests) {
    return new StagePlan(0, new LoadModel.Closed(users, 0), new StopCondition.Requests(requests),
        0, 0, 1);
  }

  /** Requests with the point's lengths: fixed, or uniform in [min, max] from a seeded stream. */
  private static RequestSource source(Point p) {
    return id -> {
      SplittableRandom random = new SplittableRandom(0x5eedL * 31 + id);
      int input = p.inputTokensMin() + random.nextInt(p.inputTokens() - p.inputTokensMin() + 1);
      int output = p.outputTokensMin() + random.nextInt(p.outputTokens() - p.outputTokensMin() + 1);
      return new RequestSpec(id, new Prompt.Text("p"), input, true, OptionalInt.of(output));
    };
  }
}
