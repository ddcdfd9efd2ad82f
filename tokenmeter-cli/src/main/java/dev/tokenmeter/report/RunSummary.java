package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.Repeats;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.slo.RunAnalysis;
import dev.tokenmeter.scrape.ServerStage;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Everything {@code summary.json} holds about one run: what was measured, how, and each stage's
 * result. Immutable; rendered by {@link SummaryJsonWriter}. The JSON schema is {@code
 * docs/summary.schema.json}, version {@link #SCHEMA_VERSION}.
 *
 * @param tool the tool that measured
 * @param startedAt wall-clock start (UTC)
 * @param endedAt wall-clock end (UTC)
 * @param target what was measured
 * @param commandLine the arguments the run was started with
 * @param seed the run's seed
 * @param settings timeouts and workload
 * @param completion whether the run finished or was cut short
 * @param stages the stages in run order; a partial run holds the stages that ran
 * @param repeats the stages' repeats, aggregated ({@code --repeat N}, schema 1.2); null when each
 *     stage ran once
 * @param pricing the prices given and each stage's cost (schema 1.2); null when no price was given
 * @param analysis the degradation curve and knee, SLO verdicts and capacity search across the
 *     stages (schema 1.2); {@link RunAnalysis#NONE} when not analysed
 * @param server per stage, in the order of {@link #stages()}, the server's own metrics over it
 *     ({@code --server-metrics}, schema 1.4); null without, and null elements for stages that have
 *     none
 * @param gpu per stage, in the order of {@link #stages()}, the GPUs' power and energy over it
 *     ({@code --gpu-metrics}, or the power model in {@code simulate}; schema 1.9); null without,
 *     and null elements for stages that have none
 */
public record RunSummary(
    Tool tool,
    Instant startedAt,
    Instant endedAt,
    Target target,
    List<String> commandLine,
    long seed,
    Settings settings,
    Completion completion,
    List<StageResult> stages,
    Repeats repeats,
    Pricing pricing,
    RunAnalysis analysis,
    List<ServerStage> server,
    List<dev.tokenmeter.scrape.GpuStage> gpu) {

  /**
   * Version of the summary.json schema: major changes break readers (a field removed or its
   * meaning changed), minor ones add fields.
   */
  public static final String SCHEMA_VERSION = "1.13";

  public RunSummary {
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(endedAt, "endedAt");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(completion, "completion");
    commandLine = List.copyOf(commandLine);
    stages = List.copyOf(stages);
    if (pricing != null && pricing.stages().size() != stages.size()) {
      throw new IllegalArgumentException("one cost per stage");
    }
    analysis = analysis == null ? RunAnalysis.NONE : analysis;
    if (server != null && server.size() != stages.size()) {
      throw new IllegalArgumentException("one server entry per stage");
    }
    server = server == null ? null : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(server));
    if (gpu != null && gpu.size() != stages.size()) {
      throw new IllegalArgumentException("one gpu entry per stage");
    }
    gpu = gpu == null ? null : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(gpu));
  }

  /** A run without GPU figures. */
  public RunSummary(
      Tool tool,
      Instant startedAt,
      Instant endedAt,
      Target target,
      List<String> commandLine,
      long seed,
      Settings settings,
      Completion completion,
      List<StageResult> stages,
      Repeats repeats,
      Pricing pricing,
      RunAnalysis analysis,
      List<ServerStage> server) {
    this(tool, startedAt, endedAt, target, commandLine, seed, settings, completion, stages, repeats, pricing,
        analysis, server, null);
  }


  /** A run whose stages each ran once, with no prices and no cross-stage analysis. */
  public RunSummary(
      Tool tool,
      Instant startedAt,
      Instant endedAt,
      Target target,
      List<String> commandLine,
      long seed,
      Settings settings,
      Completion completion,
      List<StageResult> stages) {
    this(tool, startedAt, endedAt, target, commandLine, seed, settings, completion, stages, null, null,
        RunAnalysis.NONE, null);
  }

  /**
   * What the run's stages cost.
   *
   * @param model the prices, GPUs and traffic given
   * @param stages one per stage, in the order of {@link RunSummary#stages()}
   */
  public record Pricing(Cost.Model model, List<Cost.StageCost> stages) {
    public Pricing {
      Objects.requireNonNull(model, "model");
      stages = List.copyOf(stages);
    }
  }

  /** The measuring tool: {@code tokenmeter} and its version. */
  public record Tool(String name, String version) {}

  /**
   * What was measured.
   *
   * @param url base URL of the server
   * @param api the API spoken ({@code "chat"}, {@code "completions"})
   * @param model the model asked for, null when the server chose
   */
  public record Target(String url, String api, String model) {
    public Target {
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(api, "api");
    }
  }

  /**
   * How the run was configured.
   *
   * @param timeouts the client's deadlines
   * @param workload a description of the workload (prompt and output length specs, dataset),
   *     values being strings, numbers, booleans, lists or maps of them; written as given
   * @param simulation the simulated deployment when the numbers come from {@code tokenmeter
   *     simulate} (virtual time, no server), null for a measured run
   */
  public record Settings(Timeouts timeouts, Map<String, Object> workload, Simulation simulation) {
    public Settings {
      Objects.requireNonNull(timeouts, "timeouts");
      workload = Collections.unmodifiableMap(new LinkedHashMap<>(workload));
    }

    /** A measured run's settings: no simulation. */
    public Settings(Timeouts timeouts, Map<String, Object> workload) {
      this(timeouts, workload, null);
    }
  }

  /**
   * What a simulated run simulated (schema 1.1; the prefix-cache and per-sequence overhead fields 1.2): every
   * time in such a summary is virtual, computed
   * by the engine model, not measured.
   *
   * @param note a sentence saying so, for whoever opens the file
   * @param model model preset id
   * @param gpu accelerator preset id
   * @param gpus tensor-parallel GPU count
   * @param weightsPrecision weight precision id ({@code bf16}, {@code fp8}, ...)
   * @param kvCachePrecision KV-cache precision id
   * @param kvCacheTokens tokens the simulated KV cache holds
   * @param maxModelLen longest prompt + max_tokens accepted
   * @param maxNumSeqs most sequences in one batch
   * @param maxBatchedTokens token budget of one iteration
   * @param mfu model FLOPs utilisation assumed, fraction
   * @param mbu memory bandwidth utilisation assumed, fraction
   * @param iterationOverheadMs fixed time per iteration, ms
   * @param perSequenceOverheadMs time per iteration per scheduled sequence, ms
   * @param iterations engine iterations simulated, all stages
   * @param preemptions sequences preempted for lack of KV cache, all stages
   * @param prefixCaching whether the engine's prefix cache was on
   * @param prefixCacheHitRate prompt tokens served from the prefix cache / prompt tokens, every
   *     request admitted in all stages counted once, fraction 0..1
   * @param simulatedSeconds virtual time simulated, all stages, s
   * @param wallSeconds wall time the simulation took, s
   */
  public record Simulation(
      String note,
      String model,
      String gpu,
      int gpus,
      String weightsPrecision,
      String kvCachePrecision,
      long kvCacheTokens,
      int maxModelLen,
      int maxNumSeqs,
      int maxBatchedTokens,
      double mfu,
      double achievableMatmulShare,
      double mbu,
      double iterationOverheadMs,
      double perSequenceOverheadMs,
      long iterations,
      long preemptions,
      boolean prefixCaching,
      double prefixCacheHitRate,
      double simulatedSeconds,
      double wallSeconds,
      SimulatedEngine engine,
      int dpAttention,
      int expertParallel,
      Disaggregation disaggregation) {
    /** One engine (no disaggregated pools). */
    public Simulation(String note, String model, String gpu, int gpus, String weightsPrecision,
        String kvCachePrecision, long kvCacheTokens, int maxModelLen, int maxNumSeqs,
        int maxBatchedTokens, double mfu, double achievableMatmulShare, double mbu,
        double iterationOverheadMs, double perSequenceOverheadMs, long iterations,
        long preemptions, boolean prefixCaching, double prefixCacheHitRate,
        double simulatedSeconds, double wallSeconds, SimulatedEngine engine, int dpAttention,
        int expertParallel) {
      this(note, model, gpu, gpus, weightsPrecision, kvCachePrecision, kvCacheTokens, maxModelLen,
          maxNumSeqs, maxBatchedTokens, mfu, achievableMatmulShare, mbu, iterationOverheadMs,
          perSequenceOverheadMs, iterations, preemptions, prefixCaching, prefixCacheHitRate,
          simulatedSeconds, wallSeconds, engine, dpAttention, expertParallel, null);
    }

    /** A tensor-parallel deployment: no data-parallel attention, no expert parallelism. */
    public Simulation(String note, String model, String gpu, int gpus, String weightsPrecision,
        String kvCachePrecision, long kvCacheTokens, int maxModelLen, int maxNumSeqs,
        int maxBatchedTokens, double mfu, double achievableMatmulShare, double mbu,
        double iterationOverheadMs, double perSequenceOverheadMs, long iterations,
        long preemptions, boolean prefixCaching, double prefixCacheHitRate,
        double simulatedSeconds, double wallSeconds, SimulatedEngine engine) {
      this(note, model, gpu, gpus, weightsPrecision, kvCachePrecision, kvCacheTokens, maxModelLen,
          maxNumSeqs, maxBatchedTokens, mfu, achievableMatmulShare, mbu, iterationOverheadMs,
          perSequenceOverheadMs, iterations, preemptions, prefixCaching, prefixCacheHitRate,
          simulatedSeconds, wallSeconds, engine, 1, 1);
    }

    public Simulation {
      Objects.requireNonNull(note, "note");
      Objects.requireNonNull(model, "model");
      Objects.requireNonNull(gpu, "gpu");
    }
  }

  /**
   * Disaggregated prefill and decode pools ({@code settings.simulation.disaggregation}, schema
   * 1.12; docs/PLANNER.md).
   *
   * @param prefillGpus the prefill pool's GPUs
   * @param decodeGpus the decode pool's GPUs
   * @param kvTransferLink what the KV cache moves over
   * @param kvTransferGbps its bandwidth per GPU, gigabits per second
   * @param kvTransferBytesPerToken KV bytes a prompt token moves over one GPU's link
   * @param prefillKvCacheTokens the prefill pool's KV cache
   * @param decodeKvCacheTokens the decode pool's KV cache
   * @param stages each stage's pools, in stage order
   */
  public record Disaggregation(int prefillGpus, int decodeGpus, String kvTransferLink, double kvTransferGbps,
      double kvTransferBytesPerToken, long prefillKvCacheTokens, long decodeKvCacheTokens, List<PoolStage> stages) {
    public Disaggregation {
      stages = List.copyOf(stages);
    }
  }

  /**
   * One stage's pools (virtual time from the stage's start to its end): busy shares, KV usage as
   * shares of each pool's cache (mean over busy time, peak), the longest queues, handoffs.
   */
  public record PoolStage(int stage, double prefillUtilization, double prefillKvUsageMean,
      double prefillKvUsagePeak, int prefillQueueMax, long handoffs, double handoffWaitMeanMs,
      int handoffQueueMax, double transferMeanMs, double decodeUtilization, double decodeKvUsageMean,
      double decodeKvUsagePeak) {}

  /**
   * Which engine profile and calibration a simulation used, and its variation ({@code
   * settings.simulation.engine}, schema 1.4).
   *
   * @param profile the profile's id ({@code vllm})
   * @param name the engine and version it describes
   * @param calibration {@code fitted} (the committed fit) or {@code flags} (overridden)
   * @param fittedOn the data the fitted factors come from
   * @param iterationCv iteration time's coefficient of variation (0: exact)
   * @param arrivalJitterMs widest delay from send to the scheduler, ms (0: none)
   * @param accuracy the accuracy study's held-out errors: over every source, then for each source
   *     behind this profile and platform (schema 1.6)
   */
  public record SimulatedEngine(
      String profile,
      String name,
      String calibration,
      String fittedOn,
      double iterationCv,
      double arrivalJitterMs,
      List<AccuracyFigure> accuracy) {
    public SimulatedEngine {
      accuracy = List.copyOf(accuracy);
    }
  }

  /**
   * One row of the accuracy study's leave-one-source-out errors (docs/SIMULATOR.md, Accuracy).
   *
   * @param scope {@code all} (every source's figures together) or a source's key
   * @param quantity {@code tpot}, {@code output_throughput}, {@code ttft} or {@code p99}
   * @param figures how many published figures
   * @param medianAbsErrorPercent median |predicted − published| / published, %
   * @param p90AbsErrorPercent its 90th percentile, %
   * @param medianSignedErrorPercent median (predicted − published) / published, %, for the rows of
   *     models no fit has seen (scope {@code unseen...}); null for the others
   */
  public record AccuracyFigure(
      String scope, String quantity, int figures, double medianAbsErrorPercent,
      double p90AbsErrorPercent, Double medianSignedErrorPercent) {

    /** A held-out row, without a signed median. */
    public AccuracyFigure(String scope, String quantity, int figures, double medianAbsErrorPercent,
        double p90AbsErrorPercent) {
      this(scope, quantity, figures, medianAbsErrorPercent, p90AbsErrorPercent, null);
    }
  }

  /** The client's deadlines; null where there is none. */
  public record Timeouts(Duration firstToken, Duration idle, Duration total) {
    /** No deadlines at all. */
    public static final Timeouts NONE = new Timeouts(null, null, null);
  }

  /**
   * Whether the run finished.
   *
   * @param partial true when the run stopped before its plan ended
   * @param reason why, null when not partial
   * @param detail a human-readable detail (the error message), may be null
   */
  public record Completion(boolean partial, PartialReason reason, String detail) {
    public Completion {
      if (partial != (reason != null)) {
        throw new IllegalArgumentException("a partial run needs a reason, a complete one none");
      }
    }

    /** The run ran every stage to its end. */
    public static Completion complete() {
      return new Completion(false, null, null);
    }

    /** The user stopped the run (Ctrl-C). */
    public static Completion interrupted(String detail) {
      return new Completion(true, PartialReason.INTERRUPTED, detail);
    }

    /** An error stopped the run. */
    public static Completion error(String detail) {
      return new Completion(true, PartialReason.ERROR, detail);
    }
  }

  /** Why a run is partial. */
  public enum PartialReason {
    INTERRUPTED,
    ERROR,
    /** The process died; {@code tokenmeter report --recover} rebuilt the summary from what it left. */
    RECOVERED,
    /** A worker of {@code bench --workers} was lost mid-run: the results are the other workers' only. */
    WORKER_LOST;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
