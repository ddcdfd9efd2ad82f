package dev.tokenmeter.run;

import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.Repeats;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.loadgen.StageRunner;
import dev.tokenmeter.core.loadgen.Timeouts;
import dev.tokenmeter.core.metrics.CountingThread;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.core.slo.RunAnalysis;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.report.ConsoleReport;
import dev.tokenmeter.report.RequestsJsonlWriter;
import dev.tokenmeter.report.RunSummary;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs a planned benchmark end to end: stages in order against one endpoint, requests streamed to
 * {@code requests.jsonl}, {@code summary.json} rewritten after every stage (so a crash keeps the
 * finished stages) and at the end, tables on the terminal. Ctrl-C stops the current stage, and the
 * partial results are still written. This class owns the stage loop, the lanes and Ctrl-C; what
 * it prints is rendered by {@code BenchConsole}, each lane's summary.json assembled and written by
 * {@code BenchSummaries}.
 */
public final class BenchRun {

  /**
   * One endpoint a run measures, with its own results folder: the whole run of a plain bench, or
   * one {@code --variant}. {@code requests} makes each stage's workload from the lane's share of
   * the plan (its own seed, so a later stage does not resend earlier prompts and hit the server's
   * prefix cache; the same seed in every lane, so variants send the same prompts); {@code
   * workload} describes the workload for the lane's summary.json.
   *
   * @param name the variant's name, or null for a plain run
   */
  public record Lane(
      String name,
      EndpointConfig endpoint,
      Function<StagePlan, RequestSource> requests,
      Path outDir,
      Map<String, Object> workload) {}

  /**
   * Everything a run needs. {@code lanes} are run side by side, each stage started in all of them
   * together, each with its share of the stage's load ({@link LoadSplit}); {@code outDir} is the
   * run's folder (a plain run's one lane writes into it, variants into its subfolders); {@code
   * eventLoops} is each lane's number of event loops ({@link EventLoops}); {@code failFast} stops a
   * stage whose first that many requests fail the same way ({@link TargetWatch}; 0: never).
   */
  public record Settings(
      List<Lane> lanes,
      StageSequence stages,
      Timeouts timeouts,
      Path outDir,
      boolean progress,
      List<String> commandLine,
      long seed,
      boolean rawTimes,
      OutputTokenCounter counter,
      Cost.Model cost,
      SloRun slo,
      ServerWatch.Settings serverMetrics,
      int eventLoops,
      int failFast,
      GpuWatch.Settings gpuMetrics) {
    /** A run without {@code --gpu-metrics}. */
    public Settings(List<Lane> lanes, StageSequence stages, Timeouts timeouts, Path outDir, boolean progress,
        List<String> commandLine, long seed, boolean rawTimes, OutputTokenCounter counter, Cost.Model cost,
        SloRun slo, ServerWatch.Settings serverMetrics, int eventLoops, int failFast) {
      this(lanes, stages, timeouts, outDir, progress, commandLine, seed, rawTimes, counter, cost, slo, serverMetrics,
          eventLoops, failFast, null);
    }

    public Settings {
      if (failFast < 0) {
        throw new IllegalArgumentException("--fail-fast must be 0 (off) or more, got " + failFast);
      }
      lanes = List.copyOf(lanes);
      if (eventLoops < 1) {
        throw new IllegalArgumentException("a lane needs at least one event loop, got " + eventLoops);
      }
      if (lanes.isEmpty()) {
        throw new IllegalArgumentException("a run needs at least one lane");
      }
      if (serverMetrics != null && lanes.size() > 1) {
        throw new IllegalArgumentException("--server-metrics scrapes one server: it cannot be combined with --variant");
      }
      if (gpuMetrics != null && lanes.size() > 1) {
        throw new IllegalArgumentException("--gpu-metrics reads one deployment's GPUs: it cannot be combined with --variant");
      }
    }
  }

  /** {@code --server-metrics URL --server-metrics-interval D}: see {@link ServerWatch.Settings}. */
  public static ServerWatch.Settings serverMetrics(java.net.URI url, long intervalNanos) {
    return new ServerWatch.Settings(url, intervalNanos);
  }

  private final Settings s;
  private final LiveExport export;
  private final PrintStream out;
  private final PrintStream err;
  private final Ticker ticker = Ticker.system();
  private final List<LaneRun> lanes = new CopyOnWriteArrayList<>();
  private volatile boolean interrupted;
  private final CountDownLatch written = new CountDownLatch(1);
  private boolean sloViolated;
  private ServerWatch server;
  private GpuWatch gpu;
  private Warmup warmup;
  /** Each lane's warm-up, once run (lane order); empty without one. */
  private final List<Warmup.Result> warmedUp = new CopyOnWriteArrayList<>();
  private final BenchConsole console;
  private final BenchSummaries summaries;

  public BenchRun(Settings settings, PrintStream out, PrintStream err) {
    this(settings, null, out, err);
  }

  /**
   * A run that also feeds {@code export} (null for none) with every request and each stage's
   * in-flight count; the caller closes it after {@link #run}.
   */
  public BenchRun(Settings settings, LiveExport export, PrintStream out, PrintStream err) {
    this.s = settings;
    this.export = export;
    this.out = out;
    this.err = err;
    this.console = new BenchConsole(lanes, settings.cost(), out);
    this.summaries = new BenchSummaries(settings, lanes, warmedUp, err);
  }

  /**
   * Runs {@code w} (null for none) in every lane before the first stage, outside every stage
   * ({@link Warmup}); call before {@link #run}. Returns this run.
   */
  public BenchRun warmUpFirst(Warmup w) {
    this.warmup = w;
    return this;
  }

  /** Runs every stage; returns the first lane's results (partial when interrupted). */
  public List<StageResult> run() {
    try {
      runAndReport();
      return lanes.get(0).results();
    } finally {
      written.countDown(); // lets a Ctrl-C shutdown hook return, which ends the JVM
    }
  }

  private void runAndReport() {
    Instant startedAt = Instant.now();
    long runStartNanos = ticker.nanos();
    RunSummary.Completion completion = RunSummary.Completion.complete();
    Thread hook = new Thread(this::onSignal, "tokenmeter-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    RunFailedException failure = null;
    try {
      try (CountingThread counting = new CountingThread("tokenmeter-counter");
          ProgressLine progress = new ProgressLine(err, s.progress())) {
        for (Lane lane : s.lanes()) {
          lanes.add(LaneRun.open(lane, ticker, runStartNanos, s.rawTimes(), s.eventLoops()));
        }
        if (s.serverMetrics() != null) {
          server = ServerWatch.start(s.serverMetrics(), ticker, err);
        }
        if (s.gpuMetrics() != null) {
          gpu = GpuWatch.start(s.gpuMetrics(), ticker, err);
        }
        int planned = s.stages().plannedStages();
        // From the start, so a process killed in its first stage leaves a folder to recover.
        summaries.write(startedAt, BenchSummaries.inProgress(0, planned), server, gpu);
        StagePlan plan;
        while (!interrupted && (plan = s.stages().next(lanes.get(0).results())) != null) {
          err.println(describe(plan, planned) + RepeatingSequence.noteOf(s.stages(), plan)
              + LoadSplit.note(plan, names()));
          StageJournal.started(lanes, plan, ticker.nanos() - runStartNanos, err);
          if (RepeatingSequence.freshConnections(s.stages(), plan)) {
            lanes.forEach(LaneRun::closeIdleConnections); // each repeat pays its connects, as a new client would
          }
          List<StageResult> rs = runStage(plan, counting, progress);
          progress.pause();
          console.stage(rs, planned);
          if (server != null) {
            server.stageEnded(rs.get(0), out);
          }
          if (gpu != null) {
            gpu.stageEnded(rs.get(0), out);
          }
          if (interrupted) {
            completion = RunSummary.Completion.interrupted("stopped by the user during stage " + (plan.index() + 1));
            break;
          }
          failure = StageFailures.stopped(lanes, plan);
          failure = failure != null ? failure : StageFailures.fatal(lanes, rs);
          if (failure != null) {
            completion = RunSummary.Completion.error(failure.getMessage());
            break;
          }
          // Rewritten after every stage, so a process that dies keeps the stages done; the last
          // stage's write is the final one below.
          int done = lanes.get(0).results().size();
          if (planned < 0 || done < planned) {
            summaries.write(startedAt, BenchSummaries.inProgress(done, planned), server, gpu);
          }
        }
        if (interrupted && !completion.partial()) {
          // Ctrl-C between two stages: the stages done are whole, the run is not.
          completion = RunSummary.Completion.interrupted("stopped by the user after "
              + lanes.get(0).results().size() + " stages");
        }
      } finally {
        lanes.forEach(LaneRun::close);
        if (server != null) {
          server.close();
        }
        if (gpu != null) {
          gpu.close();
        }
      }
    } finally {
      summaries.write(startedAt, completion, server, gpu);
      StageJournal.ended(lanes);
      lanes.forEach(l -> dev.tokenmeter.report.html.HtmlReport.writeQuietly(l.lane().outDir(), err));
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down: the hook is running and waits for `written`
      }
    }
    report(startedAt, completion, failure);
  }

  /**
   * After the last stage and the last write: each lane's sweep, repeats and SLO verdict, where the
   * results are, then the failure thrown, the interruption said, or the variants compared.
   */
  private void report(Instant startedAt, RunSummary.Completion completion, RunFailedException failure) {
    for (LaneRun lane : lanes) {
      RunAnalysis analysis = s.slo().analyze(lane.results());
      if (lane.results().size() > 1) {
        out.println();
        out.print(console.heading(lane) + ConsoleReport.sweep(lane.results(), analysis.sweep()));
        if (gpu != null) {
          gpu.printSweep(out);
        }
      }
      printRepeats(out, RepeatingSequence.repeatsOf(s.stages(), lane.results()));
      if (failure == null && lanes.size() == 1) {
        sloViolated = s.slo().finish(analysis, lane.results(), target(lane.lane().endpoint()), startedAt, out);
      }
    }
    lanes.forEach(l -> BenchConsole.results(l.lane().outDir(), out));
    if (failure != null) {
      throw failure;
    }
    if (interrupted) {
      // One line, last: the stage table above may be of a stage cut short in its warm-up.
      err.println("tokenmeter: interrupted: " + completion.detail() + "; partial results were written");
    }
    if (lanes.size() > 1 && !interrupted) {
      VariantReport.compareAndPrint(s.outDir(), lanes.stream().map(LaneRun::lane).toList(),
          StageComparison.Settings.DEFAULT, out, err);
    }
  }

  private List<String> names() {
    return lanes.stream().map(l -> l.lane().name()).toList();
  }

  /** Whether the user stopped the run (Ctrl-C): the command's exit code 130. */
  public boolean interrupted() {
    return interrupted;
  }

  /** Whether the run's {@code --slo} was violated (the command's exit code 3); false without one. */
  public boolean sloViolated() {
    return sloViolated;
  }

  /** A plain run's one lane: {@code endpoint}, writing into {@code outDir} itself. */
  public static List<Lane> single(EndpointConfig endpoint, Function<StagePlan, RequestSource> requests,
      Map<String, Object> workload, Path outDir) {
    return List.of(new Lane(null, endpoint, requests, outDir, workload));
  }

  /**
   * Runs one stage in every lane: all started together, each with its share of the load, and
   * waited for together; returns the lanes' results in lane order.
   */
  private List<StageResult> runStage(StagePlan plan, CountingThread counting, ProgressLine progress) {
    StagePlan share = LoadSplit.share(plan, lanes.size());
    long cpu0 = LaneRun.processCpuNanos();
    // one CPU: C2 held once the JIT settles; a trace's warm-up, before its first stage, counts
    JitHold jit = JitHold.forStage(plan.warmupNanos() > 0 ? plan.warmupNanos()
        : warmup != null ? warmup.durationNanos() : 0);
    // The stage's requests first (a trace's first prompts are built here, which takes long), then
    // the run's warm-up, then the stage: its clock starts right after the warm-up.
    List<RequestSource> sources = new ArrayList<>();
    for (LaneRun lane : lanes) {
      sources.add(lane.lane().requests().apply(share));
    }
    if (warmup != null && warmedUp.isEmpty() && !interrupted) {
      jit.prepare(); // what the hold's push loads, loaded while nothing is measured
      warmUp(counting);
    }
    List<StageRunner> runners = new ArrayList<>();
    for (int i = 0; i < lanes.size(); i++) {
      runners.add(lanes.get(i).start(share, sources.get(i), s.timeouts(), ticker, s.slo(), s.counter(), counting,
          export, s.failFast()));
    }
    if (interrupted) {
      // Ctrl-C between the stage's announcement and its start found no runner to stop.
      lanes.forEach(l -> l.interrupt("interrupted (Ctrl-C)"));
    }
    jit.holdAfter(plan.warmupNanos());
    int planned = s.stages().plannedStages();
    String label = "[" + (plan.index() + 1) + (planned < 0 ? "" : "/" + planned) + " " + plan.load().label()
        + (lanes.size() == 1 ? "" : " " + lanes.get(0).lane().name()) + "]";
    StageRunner shown = runners.get(0);
    progress.show(label, () -> shown.recorder() == null ? null : shown.recorder().live(ticker.nanos()));
    long[] ends = new long[lanes.size()];
    try {
      for (int i = 0; i < ends.length; i++) {
        ends[i] = lanes.get(i).await();
        if (Thread.currentThread().isInterrupted()) {
          lanes.forEach(l -> l.interrupt("interrupted")); // one stopped: stop all, as Ctrl-C does
        }
      }
    } finally {
      jit.release();
    }
    long cpu = LaneRun.processCpuNanos();
    List<StageResult> results = new ArrayList<>();
    for (int i = 0; i < ends.length; i++) {
      results.add(lanes.get(i).finish(ends[i], cpu0, cpu, s.slo()));
    }
    return results;
  }

  /**
   * The run's warm-up before its first stage, in every lane one after the other (a trace replay has
   * one lane); a second call does nothing.
   */
  private void warmUp(CountingThread counting) {
    err.printf(java.util.Locale.ROOT, "tokenmeter: warm-up: %d connection(s) for %.1f s before the trace's clock"
        + " starts (unmeasured, not in requests.jsonl; --trace-warmup off skips it)%n", warmup.connections(),
        warmup.durationNanos() / 1e9);
    for (LaneRun lane : lanes) {
      if (interrupted) {
        return;
      }
      Warmup.Result r = lane.warmUp(warmup, s.seed(), s.timeouts(), ticker, s.counter(), counting);
      warmedUp.add(r);
      err.printf(java.util.Locale.ROOT, "tokenmeter: warm-up done: %d request(s), %d failed, in %.1f s%n",
          r.requests(), r.requests() - r.completed(), r.elapsedNanos() / 1e9);
    }
  }

  private void onSignal() {
    interrupted = true;
    lanes.forEach(l -> l.interrupt("interrupted (Ctrl-C)"));
    try {
      written.await(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The repeats table, when the run repeated its stages. */
  public static void printRepeats(PrintStream out, Repeats repeats) {
    BenchConsole.repeats(out, repeats);
  }

  /**
   * Writes {@code summary.json} into {@code dir} atomically (a temporary file moved over it), so a
   * reader never sees half a file; a failure is reported on {@code err}, not thrown.
   */
  public static void writeSummary(Path dir, RunSummary summary, PrintStream err) {
    BenchSummaries.writeAtomically(dir, summary, err);
  }

  /** {@code http://127.0.0.1:8000 model llama}: the target as JUnit and Markdown name it. */
  private static String target(EndpointConfig e) {
    return e.baseUrl() + (e.model() == null ? "" : " model " + e.model());
  }

  public static RunSummary.Timeouts timeouts(Timeouts t) {
    return BenchSummaries.timeouts(t);
  }

  public static RequestsJsonlWriter openJsonl(Path file, long runStartNanos, boolean rawTimes) {
    try {
      return new RequestsJsonlWriter(file, runStartNanos, rawTimes);
    } catch (IOException e) {
      throw new RunFailedException("cannot write " + file + ": " + e.getMessage() + ". Choose another folder with --out DIR.");
    }
  }

  /** The stage's announcement: {@code Stage 1/1: c=4, warm-up 1s, 6 measured requests, cool-down 1s; ...}. */
  public static String describe(StagePlan p, int count) {
    return BenchConsole.describe(p, count);
  }
}
