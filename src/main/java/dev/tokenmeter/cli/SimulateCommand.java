package dev.tokenmeter.cli;

import dev.tokenmeter.core.Version;
import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.report.ConsoleReport;
import dev.tokenmeter.report.RequestsJsonlWriter;
import dev.tokenmeter.report.RunSummary;
import dev.tokenmeter.run.BenchRun;
import dev.tokenmeter.run.RepeatingSequence;
import dev.tokenmeter.run.RunCost;
import dev.tokenmeter.run.RunFailedException;
import dev.tokenmeter.run.SloRun;
import dev.tokenmeter.run.StageSequence;
import dev.tokenmeter.simulator.engine.EngineConfig;
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
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code tokenmeter simulate}: the capacity planner. bench's load models and workloads against the
 * engine model in virtual time (no server, no sockets), written as the same results folder.
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Predicts what bench would measure against --model served on --gpus x --gpu, in seconds: the same",
      "continuous-batching engine model as `sim serve`, run as a discrete-event simulation in virtual time with",
      "bench's load models and workloads. Every request generates exactly its max_tokens (ignore_eos).",
      "Writes the same requests.jsonl and summary.json as bench (settings.simulation marks them simulated)."
    })
final class SimulateCommand implements Callable<Integer> {
  /** Note written into summary.json, so nobody mistakes the file for a measurement. */
  static final String NOTE =
      "Simulated in virtual time by tokenmeter's continuous-batching engine model (docs/SIMULATOR.md):"
          + " every time and rate here is a prediction, not a measurement; no server was contacted.";

  @Spec CommandSpec spec;

  @Mixin EngineOptions engine = new EngineOptions();

  @ArgGroup(validate = false, heading = "%nLoad:%n")
  LoadOptions load = new LoadOptions();

  @ArgGroup(validate = false, heading = "%nWorkload:%n")
  WorkloadOptions workload = new WorkloadOptions();

  @ArgGroup(validate = false, heading = "%nRepeats:%n")
  RepeatOptions repeats = new RepeatOptions();

  @ArgGroup(validate = false, heading = "%nCost (GPUs: --gpus):%n")
  CostOptions cost = new CostOptions();

  @ArgGroup(validate = false, heading = "%nTimeouts (virtual time) and output:%n")
  OutputOptions output = new OutputOptions();

  @ArgGroup(validate = false, heading = "%nSLO gates and capacity search:%n")
  SloOptions slo = new SloOptions();

  /** The simulation running, for the Ctrl-C hook; null before it starts. */
  private volatile Simulation running;
  private volatile boolean interrupted;
  /** Stages started so far, set before each runs (read by tests waiting for the sweep to get somewhere). */
  volatile int stagesStarted;
  private final CountDownLatch written = new CountDownLatch(1);

  @Override
  public Integer call() {
    PrintStream out = System.out;
    PrintStream err = System.err;
    SloRun sloRun = slo.resolve(load);
    StageSequence stages = repeats.sequence(sloRun.stages());
    EngineConfig config = engine.config();
    Cost.Model costModel = cost.model(config.tensorParallel());
    var requests = workload.lengthsFactory();
    if ("none".equalsIgnoreCase(workload.outputTokens)) {
      throw new UsageException("simulate needs output lengths: give --output-tokens (the simulated engine generates exactly max_tokens)");
    }
    Ticker wall = Ticker.system();
    Instant startedAt = Instant.now();
    long wallStartNanos = wall.nanos();
    Path dir = output.outDir(startedAt);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new RunFailedException("cannot create the results folder " + dir + ": " + e.getMessage()
          + ". Choose another with --out DIR.");
    }
    List<StageResult> results = new ArrayList<>();
    RunSummary.Completion completion = RunSummary.Completion.complete();
    RunFailedException failure = null;
    Simulation sim = null;
    Thread hook = new Thread(this::onSignal, "tokenmeter-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try (RequestsJsonlWriter jsonl = BenchRun.openJsonl(dir.resolve("requests.jsonl"), 0, output.rawTimes)) {
      // The default max_tokens is never used: the workload always sets one (checked above).
      sim = new Simulation(config, output.timeouts(), 256, sloRun.sink(jsonl), null, workload.sharedPrefixTokens);
      running = sim;
      if (interrupted) {
        sim.interrupt("interrupted (Ctrl-C)");
      }
      err.println("tokenmeter simulate: " + EngineOptions.describe(config) + ", KV cache "
          + sim.endpoint().roofline().kvCapacityTokens() + " tokens, context "
          + sim.endpoint().maxModelLen() + " tokens; virtual time");
      int planned = stages.plannedStages();
      StagePlan plan;
      while ((plan = stages.next(results)) != null) {
        if (sim.interrupted()) {
          completion = RunSummary.Completion.interrupted("stopped by the user before stage " + (plan.index() + 1));
          break;
        }
        err.println(BenchRun.describe(plan, planned) + RepeatingSequence.noteOf(stages, plan));
        stagesStarted = plan.index() + 1;
        StageResult r = sloRun.withGoodput(sim.runStage(plan, requests.apply(plan)));
        results.add(r);
        out.println();
        out.print(ConsoleReport.stage(r, planned, /* virtualTime= */ true));
        RunCost.print(out, costModel, r);
        if (sim.interrupted()) {
          completion = RunSummary.Completion.interrupted("stopped by the user during stage " + (plan.index() + 1));
          break;
        }
        failure = BenchRun.fatal(r);
        if (failure != null) {
          completion = RunSummary.Completion.error(failure.getMessage());
          break;
        }
        if (planned < 0 || results.size() < planned) {
          writeSummary(dir, new Run(config, sim, startedAt, stages, sloRun, costModel, wall, wallStartNanos),
              RunSummary.Completion.error("run in progress (" + results.size() + (planned < 0 ? "" : " of " + planned)
                  + " stages done); if this remains, the process died"), results, err);
        }
      }
    } finally {
      try {
        if (sim != null) {
          writeSummary(dir, new Run(config, sim, startedAt, stages, sloRun, costModel, wall, wallStartNanos),
              completion, results, err);
          dev.tokenmeter.report.html.HtmlReport.writeQuietly(dir, err);
        }
      } finally {
        written.countDown(); // lets a Ctrl-C hook return, which ends the JVM
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // already shutting down: the hook is running and waited for `written`
        }
      }
    }
    double wallSeconds = (wall.nanos() - wallStartNanos) / 1e9;
    var repeated = RepeatingSequence.repeatsOf(stages, results);
    var analysis = sloRun.analyze(results);
    if (results.size() > 1) {
      out.println();
      out.print(ConsoleReport.sweep(results, analysis.sweep()));
    }
    BenchRun.printRepeats(out, repeated);
    int code = failure != null ? Main.EXIT_FAILED
        : sloRun.finish(analysis, results, target(config), startedAt, out) ? Main.EXIT_SLO_VIOLATED : Main.EXIT_OK;
    out.println();
    long requestsSimulated = sim.endpoint().requestsStarted();
    err.println(String.format(Locale.ROOT,
        "tokenmeter simulate: %d requests over %.1f s of virtual time in %.2f s of wall time (%.0f requests per wall minute)",
        requestsSimulated, sim.nanos() / 1e9, wallSeconds, requestsSimulated / wallSeconds * 60));
    out.println("Results (simulated" + (sim.interrupted() ? ", partial: interrupted" : "") + "): "
        + dir.resolve("summary.json") + " and " + dir.resolve("requests.jsonl"));
    dev.tokenmeter.report.html.HtmlReport.printLocation(dir, out);
    if (failure != null) {
      throw failure;
    }
    return sim.interrupted() ? Main.EXIT_INTERRUPTED : code;
  }

  /**
   * Ctrl-C (the JVM's shutdown hook), or a test: stops the simulation at its next event and waits
   * (at most 15 s) until the partial summary.json is written. Any thread.
   */
  void onSignal() {
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

  /** What a summary of this run is made from, besides its completion and stages. */
  private record Run(
      EngineConfig config,
      Simulation sim,
      Instant startedAt,
      StageSequence stages,
      SloRun slo,
      Cost.Model cost,
      Ticker wall,
      long wallStartNanos) {}

  private void writeSummary(
      Path dir, Run run, RunSummary.Completion completion, List<StageResult> results, PrintStream err) {
    double wallSeconds = (run.wall().nanos() - run.wallStartNanos()) / 1e9;
    BenchRun.writeSummary(
        dir,
        summary(run.config(), run.sim(), run.startedAt(), completion, results,
            RepeatingSequence.repeatsOf(run.stages(), results), RunCost.pricing(run.cost(), results),
            wallSeconds, run.slo().analyze(results)),
        err);
  }

  private RunSummary summary(
      EngineConfig c,
      Simulation sim,
      Instant startedAt,
      RunSummary.Completion completion,
      List<StageResult> results,
      dev.tokenmeter.core.analysis.Repeats repeated,
      RunSummary.Pricing pricing,
      double wallSeconds,
      dev.tokenmeter.core.analysis.RunAnalysis analysis) {
    List<String> commandLine = Runs.commandLine(spec);
    var simulation =
        new RunSummary.Simulation(
            NOTE, c.model().id(), c.gpu().id(), c.tensorParallel(), c.weights().id(), c.kvCache().id(),
            sim.endpoint().roofline().kvCapacityTokens(), sim.endpoint().maxModelLen(), c.maxNumSeqs(),
            c.maxBatchedTokens(), c.mfu(), c.mbu(), c.iterationOverheadNanos() / 1e6,
            c.perSequenceOverheadNanos() / 1e6,
            sim.endpoint().iterations(), sim.endpoint().preemptions(), c.prefixCaching(),
            sim.endpoint().prefixCacheHitRate(), sim.nanos() / 1e9, wallSeconds);
    Map<String, Object> described = workload.describe();
    if (workload.prompts == null) {
      // Synthetic lengths are the token counts the engine simulates: exact by construction.
      described.put("input_tokens_exact", true);
      described.put("tokenizer", "none");
      described.put("tokenizer_source", "simulate: drawn lengths are token counts");
    }
    described.put("ignore_eos", true);
    return new RunSummary(
        new RunSummary.Tool("tokenmeter", Version.VERSION),
        startedAt,
        Instant.now(),
        new RunSummary.Target(target(c), "simulated", c.model().id()),
        commandLine,
        load.seed,
        new RunSummary.Settings(BenchRun.timeouts(output.timeouts()), described, simulation),
        completion,
        results,
        repeated,
        pricing,
        analysis);
  }

  /** {@code simulate:llama-3.1-8b@1xh100-sxm}, with {@code :fp8} when weights are not BF16. */
  static String target(EngineConfig c) {
    String precision = c.weights().id().equals("bf16") ? "" : ":" + c.weights().id();
    return "simulate:" + c.model().id() + "@" + c.tensorParallel() + "x" + c.gpu().id() + precision;
  }
}
