package dev.tokenmeter.run;

import dev.tokenmeter.core.Version;
import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.loadgen.Timeouts;
import dev.tokenmeter.core.slo.RunAnalysis;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.report.ConsoleReport;
import dev.tokenmeter.report.RequestsJsonlWriter;
import dev.tokenmeter.report.RunSummary;
import dev.tokenmeter.report.html.HtmlReport;
import dev.tokenmeter.simulator.engine.AchievableMatmul;
import dev.tokenmeter.simulator.engine.Calibration;
import dev.tokenmeter.simulator.engine.DisaggregatedEngine;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.HeldOutAccuracy;
import dev.tokenmeter.simulator.engine.Variation;
import dev.tokenmeter.simulator.virtual.Simulation;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs a capacity plan ({@code tokenmeter simulate}) end to end: the stages against the engine
 * model in virtual time (no server, no sockets), written as the same results folder as a bench
 * run ({@code requests.jsonl}, {@code summary.json} rewritten after every stage, {@code
 * report.html}) and marked as simulated. Ctrl-C ({@link #onSignal}) stops at the next simulated
 * event, and the stages done so far are still written. One thread runs it; {@link #onSignal} and
 * {@link #stagesStarted} may be called from any.
 */
public final class SimulateRun {
  /** Note written into summary.json, so nobody mistakes the file for a measurement. */
  public static final String NOTE =
      "Simulated in virtual time by tokenmeter's continuous-batching engine model (docs/SIMULATOR.md):"
          + " every time and rate here is a prediction, not a measurement; no server was contacted.";

  /**
   * Everything a simulated run needs. {@code requests} draws each stage's lengths (every request
   * sets its max_tokens); {@code workload} describes them for summary.json; {@code timeouts} are in
   * virtual time; {@code notes} are printed with the engine's description (what to keep in mind
   * reading the numbers). {@code parallelToolCalls} is how many tool calls the engine's answers
   * to agent steps carry ({@code --parallel-tool-calls}, 1 by default).
   */
  public record Settings(
      EngineConfig config,
      Variation variation,
      StageSequence stages,
      SloRun slo,
      Cost.Model cost,
      Function<StagePlan, RequestSource> requests,
      int sharedPrefixTokens,
      Timeouts timeouts,
      Path outDir,
      boolean rawTimes,
      List<String> commandLine,
      long seed,
      Map<String, Object> workload,
      List<String> notes,
      double powerPricePerKwh,
      String currency,
      DisaggregatedEngine.Pools pools,
      int parallelToolCalls) {
    /** One tool call per answer. */
    public Settings(EngineConfig config, Variation variation, StageSequence stages, SloRun slo, Cost.Model cost,
        Function<StagePlan, RequestSource> requests, int sharedPrefixTokens, Timeouts timeouts, Path outDir,
        boolean rawTimes, List<String> commandLine, long seed, Map<String, Object> workload, List<String> notes,
        double powerPricePerKwh, String currency, DisaggregatedEngine.Pools pools) {
      this(config, variation, stages, slo, cost, requests, sharedPrefixTokens, timeouts, outDir, rawTimes, commandLine,
          seed, workload, notes, powerPricePerKwh, currency, pools, 1);
    }

    /** One engine (no disaggregated pools). */
    public Settings(EngineConfig config, Variation variation, StageSequence stages, SloRun slo, Cost.Model cost,
        Function<StagePlan, RequestSource> requests, int sharedPrefixTokens, Timeouts timeouts, Path outDir,
        boolean rawTimes, List<String> commandLine, long seed, Map<String, Object> workload, List<String> notes,
        double powerPricePerKwh, String currency, int parallelToolCalls) {
      this(config, variation, stages, slo, cost, requests, sharedPrefixTokens, timeouts, outDir, rawTimes, commandLine,
          seed, workload, notes, powerPricePerKwh, currency, null, parallelToolCalls);
    }

    /** Without {@code --power-price}. */
    public Settings(EngineConfig config, Variation variation, StageSequence stages, SloRun slo, Cost.Model cost,
        Function<StagePlan, RequestSource> requests, int sharedPrefixTokens, Timeouts timeouts, Path outDir,
        boolean rawTimes, List<String> commandLine, long seed, Map<String, Object> workload, List<String> notes) {
      this(config, variation, stages, slo, cost, requests, sharedPrefixTokens, timeouts, outDir, rawTimes, commandLine,
          seed, workload, notes, Double.NaN, cost == null ? "USD" : cost.currency(), null, 1);
    }

    /** One engine (no disaggregated pools), one tool call per answer. */
    public Settings(EngineConfig config, Variation variation, StageSequence stages, SloRun slo, Cost.Model cost,
        Function<StagePlan, RequestSource> requests, int sharedPrefixTokens, Timeouts timeouts, Path outDir,
        boolean rawTimes, List<String> commandLine, long seed, Map<String, Object> workload, List<String> notes,
        double powerPricePerKwh, String currency) {
      this(config, variation, stages, slo, cost, requests, sharedPrefixTokens, timeouts, outDir, rawTimes, commandLine,
          seed, workload, notes, powerPricePerKwh, currency, null, 1);
    }

    public Settings {
      notes = List.copyOf(notes);
    }
  }

  private final Settings s;
  private final PrintStream out;
  private final PrintStream err;
  private final Ticker wall = Ticker.system();
  private final CountDownLatch written = new CountDownLatch(1);
  private final List<StageResult> results = new ArrayList<>();
  private final List<dev.tokenmeter.scrape.GpuStage> energy = new ArrayList<>();
  /** Each stage's figures of the disaggregated pools, when there are. */
  private final List<DisaggregatedEngine.Window> poolWindows = new ArrayList<>();
  private final List<Long> poolStageNanos = new ArrayList<>();
  /** The simulation running, for the Ctrl-C hook; null before it starts. */
  private volatile Simulation running;
  private volatile boolean interrupted;
  private volatile int stagesStarted;
  private boolean sloViolated;
  private Instant startedAt;
  private long wallStartNanos;

  public SimulateRun(Settings settings, PrintStream out, PrintStream err) {
    this.s = settings;
    this.out = out;
    this.err = err;
  }

  /**
   * Runs every stage, writes the results folder and prints the tables; throws {@link
   * RunFailedException} when a stage failed entirely (after writing what was done).
   */
  public void run() {
    try {
      runAndReport();
    } finally {
      written.countDown(); // lets a Ctrl-C shutdown hook return, which ends the JVM: after the last line
    }
  }

  private void runAndReport() {
    startedAt = Instant.now();
    wallStartNanos = wall.nanos();
    Path dir = s.outDir();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new RunFailedException("cannot create the results folder " + dir + ": " + e.getMessage()
          + ". Choose another with --out DIR.");
    }
    RunSummary.Completion completion = RunSummary.Completion.complete();
    RunFailedException failure = null;
    Simulation sim = null;
    Thread hook = new Thread(this::onSignal, "tokenmeter-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try (RequestsJsonlWriter jsonl = BenchRun.openJsonl(dir.resolve("requests.jsonl"), 0, s.rawTimes())) {
      // The default max_tokens is never used: the workload always sets one.
      sim = new Simulation(s.config(), s.pools(), s.timeouts(), 256, s.slo().sink(jsonl), null,
          s.sharedPrefixTokens(), s.variation());
      sim.endpoint().parallelToolCalls(s.parallelToolCalls());
      running = sim;
      if (interrupted) {
        sim.interrupt("interrupted (Ctrl-C)");
      }
      err.println("tokenmeter simulate: " + s.config().describe() + ", KV cache "
          + sim.endpoint().roofline().kvCapacityTokens() + " tokens, context "
          + sim.endpoint().maxModelLen() + " tokens; virtual time");
      err.println("tokenmeter simulate: " + s.config().describeEngine());
      if (s.pools() != null) {
        err.println("tokenmeter simulate: " + PoolsReport.describe(sim.endpoint().disaggregated()));
      }
      HeldOutAccuracy.describe(s.config()).forEach(l -> err.println("tokenmeter simulate: " + l));
      err.println("tokenmeter simulate: " + describe(s.variation()));
      s.notes().forEach(n -> err.println("tokenmeter simulate: " + n));
      int planned = s.stages().plannedStages();
      StagePlan plan;
      while ((plan = s.stages().next(results)) != null) {
        if (sim.interrupted()) {
          completion = RunSummary.Completion.interrupted("stopped by the user before stage " + (plan.index() + 1));
          break;
        }
        err.println(BenchRun.describe(plan, planned) + RepeatingSequence.noteOf(s.stages(), plan));
        stagesStarted = plan.index() + 1;
        var pools = sim.endpoint().disaggregated();
        var poolsBefore = pools == null ? null : pools.window();
        long stageStart = sim.nanos();
        StageResult r = s.slo().withGoodput(sim.runStage(plan, s.requests().apply(plan)));
        if (r.completions() != null) {
          // The virtual engine drops a cancelled sequence at once, freeing its slot and KV cache.
          r = r.withCompletions(r.completions().withServerStop(dev.tokenmeter.core.analysis.Completions.ServerStop.STOPPED));
        }
        results.add(r);
        out.println();
        out.print(ConsoleReport.stage(r, planned, /* virtualTime= */ true));
        if (r.sessions() != null) {
          out.println("  conversations: " + dev.tokenmeter.report.SessionWords.of(r.sessions()));
        }
        if (r.completions() != null) {
          out.println("  completion: " + r.completions().inWords());
        }
        if (pools != null) {
          var w = pools.window().minus(poolsBefore);
          poolWindows.add(w);
          poolStageNanos.add(sim.nanos() - stageStart);
          out.println(PoolsReport.stageLine(pools.pools(), w, sim.nanos() - stageStart));
        }
        RunCost.print(out, s.cost(), r);
        energy.add(SimulatedEnergy.stage(sim.endpoint().energy(), r, s.powerPricePerKwh()));
        SimulatedEnergy.print(out, energy, s.config(), s.currency());
        if (sim.interrupted()) {
          completion = RunSummary.Completion.interrupted("stopped by the user during stage " + (plan.index() + 1));
          break;
        }
        failure = StageFailures.fatal(r, null);
        if (failure != null) {
          completion = RunSummary.Completion.error(failure.getMessage());
          break;
        }
        if (planned < 0 || results.size() < planned) {
          writeSummary(sim, RunSummary.Completion.error("run in progress (" + results.size()
              + (planned < 0 ? "" : " of " + planned) + " stages done); if this remains, the process died"));
        }
      }
    } finally {
      try {
        if (sim != null) {
          writeSummary(sim, completion);
          HtmlReport.writeQuietly(dir, err);
        }
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // already shutting down: the hook is running and waits for `written`, counted down after printEnd
        }
      }
    }
    printEnd(sim, failure, completion);
    if (failure != null) {
      throw failure;
    }
  }

  private void printEnd(Simulation sim, RunFailedException failure, RunSummary.Completion completion) {
    double wallSeconds = (wall.nanos() - wallStartNanos) / 1e9;
    RunAnalysis analysis = s.slo().analyze(results);
    if (results.size() > 1) {
      out.println();
      out.print(ConsoleReport.sweep(results, analysis.sweep()));
    }
    BenchRun.printRepeats(out, RepeatingSequence.repeatsOf(s.stages(), results));
    SimulatedEnergy.printOptimal(out, energy, results, analysis);
    sloViolated = failure == null && s.slo().finish(analysis, results, target(s.config()), startedAt, out);
    out.println();
    long requestsSimulated = sim.endpoint().requestsStarted();
    err.println(String.format(Locale.ROOT,
        "tokenmeter simulate: %d requests over %.1f s of virtual time in %.2f s of wall time (%.0f requests per wall minute)",
        requestsSimulated, sim.nanos() / 1e9, wallSeconds, requestsSimulated / wallSeconds * 60));
    out.println("Results (simulated" + (sim.interrupted() ? ", partial: interrupted" : "") + "): "
        + s.outDir().resolve("summary.json") + " and " + s.outDir().resolve("requests.jsonl"));
    HtmlReport.printLocation(s.outDir(), out);
    interrupted |= sim.interrupted();
    if (interrupted) {
      // One line, last, as bench says it
      String when = completion.reason() == RunSummary.PartialReason.INTERRUPTED ? completion.detail()
          : "stopped by the user after " + results.size() + " stages";
      err.println("tokenmeter: interrupted: " + when + "; partial results were written");
    }
  }

  /** Whether the user stopped the run (Ctrl-C): the command's exit code 130. */
  public boolean interrupted() {
    return interrupted;
  }

  /** Whether the run's {@code --slo} was violated (the command's exit code 3); false without one. */
  public boolean sloViolated() {
    return sloViolated;
  }

  /** Stages started so far, set before each runs (for tests waiting for a sweep to get somewhere). */
  public int stagesStarted() {
    return stagesStarted;
  }

  /**
   * Ctrl-C (the JVM's shutdown hook), or a test: stops the simulation at its next event and waits
   * (at most 15 s) until the partial summary.json is written. Any thread.
   */
  public void onSignal() {
    interrupted = true;
    Simulation sim = running;
    if (sim != null) {
      sim.interrupt("interrupted (Ctrl-C)");
    }
    try {
      written.await(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void writeSummary(Simulation sim, RunSummary.Completion completion) {
    double wallSeconds = (wall.nanos() - wallStartNanos) / 1e9;
    BenchRun.writeSummary(s.outDir(), summary(sim, completion, wallSeconds), err);
  }

  private RunSummary summary(Simulation sim, RunSummary.Completion completion, double wallSeconds) {
    EngineConfig c = s.config();
    var simulation =
        new RunSummary.Simulation(
            NOTE, c.model().id(), c.gpu().id(), c.tensorParallel(), c.weights().id(), c.kvCache().id(),
            sim.endpoint().roofline().kvCapacityTokens(), sim.endpoint().maxModelLen(), c.maxNumSeqs(),
            c.maxBatchedTokens(), c.mfu(), AchievableMatmul.share(c.gpu(), c.weights()), c.mbu(),
            c.iterationOverheadNanos() / 1e6,
            c.perSequenceOverheadNanos() / 1e6,
            sim.endpoint().iterations(), sim.endpoint().preemptions(), c.prefixCaching(),
            sim.endpoint().prefixCacheHitRate(), sim.nanos() / 1e9, wallSeconds, engine(c, s.variation()),
            c.parallelism().dataParallelAttention(), c.parallelism().expertParallel(),
            PoolsReport.summary(sim.endpoint().disaggregated(), poolWindows, poolStageNanos));
    return new RunSummary(
        new RunSummary.Tool("tokenmeter", Version.VERSION),
        startedAt,
        Instant.now(),
        new RunSummary.Target(target(c), "simulated", c.model().id()),
        s.commandLine(),
        s.seed(),
        new RunSummary.Settings(BenchRun.timeouts(s.timeouts()), s.workload(), simulation),
        completion,
        results,
        RepeatingSequence.repeatsOf(s.stages(), results),
        RunCost.pricing(s.cost(), results),
        s.slo().analyze(results),
        null,
        energy.stream().allMatch(java.util.Objects::isNull) ? null : new ArrayList<>(energy.subList(0, results.size())));
  }

  /** {@code variation: iteration time CV 0.05, arrival jitter 0-2.000 ms}, or that there is none. */
  static String describe(Variation v) {
    return v.none()
        ? "variation: none (exact engine; --variation adds the estimated spread, docs/SIMULATOR.md Tails)"
        : String.format(Locale.ROOT, "variation: iteration time CV %.3f, arrival jitter 0-%.3f ms, seed %d"
            + " (docs/SIMULATOR.md Tails)", v.iterationCv(), v.arrivalJitterNanos() / 1e6, v.seed());
  }

  /** summary.json's settings.simulation.engine: the profile, its calibration and the variation. */
  static RunSummary.SimulatedEngine engine(EngineConfig c, Variation v) {
    return new RunSummary.SimulatedEngine(
        c.profile().id(), c.profile().name(), c.fittedCalibration() ? "fitted" : "flags",
        Calibration.FITTED_ON, v.iterationCv(), v.arrivalJitterNanos() / 1e6, accuracy(c));
  }

  /**
   * The held-out errors over every source, then of each source behind {@code c}'s profile, then,
   * for a model of the kind no fit has seen, the errors on its own published setups (scope {@code
   * unseen:MODEL/PROFILE}) or on every such model's (scope {@code unseen}).
   */
  static List<RunSummary.AccuracyFigure> accuracy(EngineConfig c) {
    List<RunSummary.AccuracyFigure> out = new ArrayList<>();
    for (HeldOutAccuracy.Quantity q : HeldOutAccuracy.Quantity.values()) {
      out.add(figure("all", q, HeldOutAccuracy.POOLED.get(q)));
    }
    for (HeldOutAccuracy.Source src : HeldOutAccuracy.behind(c)) {
      for (HeldOutAccuracy.Quantity q : HeldOutAccuracy.Quantity.values()) {
        HeldOutAccuracy.Figure f = src.figures().get(q);
        if (f != null) {
          out.add(figure(src.key(), q, f));
        }
      }
    }
    List<HeldOutAccuracy.Unseen> own = HeldOutAccuracy.UNSEEN.stream()
        .filter(u -> u.model().equals(c.model().id())).toList();
    if (!own.isEmpty()) {
      own.forEach(u -> unseen(out, "unseen:" + u.model() + "/" + u.profile(), u.figures()));
    } else if (HeldOutAccuracy.unseenKind(c.model())) {
      unseen(out, "unseen", HeldOutAccuracy.UNSEEN_POOLED);
    }
    return out;
  }

  private static void unseen(List<RunSummary.AccuracyFigure> out, String scope,
      java.util.Map<HeldOutAccuracy.Quantity, HeldOutAccuracy.UnseenFigure> figures) {
    for (HeldOutAccuracy.Quantity q : HeldOutAccuracy.Quantity.values()) {
      HeldOutAccuracy.UnseenFigure f = figures.get(q);
      if (f != null) {
        out.add(new RunSummary.AccuracyFigure(scope, q.jsonName(), f.figures(), f.medianPercent(),
            f.p90Percent(), f.medianSignedPercent()));
      }
    }
  }

  private static RunSummary.AccuracyFigure figure(
      String scope, HeldOutAccuracy.Quantity q, HeldOutAccuracy.Figure f) {
    return new RunSummary.AccuracyFigure(scope, q.jsonName(), f.figures(), f.medianPercent(), f.p90Percent());
  }

  /** {@code simulate:llama-3.1-8b@1xh100-sxm}, with {@code :fp8} when weights are not BF16. */
  public static String target(EngineConfig c) {
    String precision = c.weights().id().equals("bf16") ? "" : ":" + c.weights().id();
    return "simulate:" + c.model().id() + "@" + c.tensorParallel() + "x" + c.gpu().id() + precision;
  }
}
