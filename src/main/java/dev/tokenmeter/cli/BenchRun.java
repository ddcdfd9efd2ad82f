package dev.tokenmeter.cli;

import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.client.OpenAiEndpoint;
import dev.tokenmeter.core.Version;
import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.Repeats;
import dev.tokenmeter.core.analysis.RunAnalysis;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.engine.RequestSource;
import dev.tokenmeter.core.engine.StageRunner;
import dev.tokenmeter.core.engine.Timeouts;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.metrics.CountingThread;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.report.ConsoleReport;
import dev.tokenmeter.report.RepeatsReport;
import dev.tokenmeter.report.RequestsJsonlWriter;
import dev.tokenmeter.report.RunSummary;
import dev.tokenmeter.report.SummaryJsonWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs a planned benchmark end to end: stages in order against one endpoint, requests streamed to
 * {@code requests.jsonl}, {@code summary.json} rewritten after every stage (so a crash keeps the
 * finished stages) and at the end, tables on the terminal. Ctrl-C stops the current stage, and the
 * partial results are still written.
 */
final class BenchRun {

  /**
   * Everything a run needs. {@code requests} makes each stage's workload from its plan (its own
   * seed, so a later stage does not resend earlier prompts and hit the server's prefix cache);
   * {@code workload} describes the workload for summary.json.
   */
  record Settings(
      EndpointConfig endpoint,
      StageSequence stages,
      Function<StagePlan, RequestSource> requests,
      Timeouts timeouts,
      Path outDir,
      boolean progress,
      List<String> commandLine,
      long seed,
      Map<String, Object> workload,
      boolean rawTimes,
      OutputTokenCounter counter,
      Cost.Model cost,
      SloRun slo) {}

  private final Settings s;
  private final PrintStream out;
  private final PrintStream err;
  private final Ticker ticker = Ticker.system();
  private volatile StageRunner current;
  private volatile boolean interrupted;
  private final CountDownLatch written = new CountDownLatch(1);
  private int sloExitCode = Main.EXIT_OK;

  BenchRun(Settings settings, PrintStream out, PrintStream err) {
    this.s = settings;
    this.out = out;
    this.err = err;
  }

  /** Runs every stage; returns the results (partial when interrupted). */
  List<StageResult> run() {
    try {
      return runAndReport();
    } finally {
      written.countDown(); // lets a Ctrl-C shutdown hook return, which ends the JVM
    }
  }

  private List<StageResult> runAndReport() {
    Instant startedAt = Instant.now();
    long runStartNanos = ticker.nanos();
    Path dir = s.outDir();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new RunFailedException("cannot create the results folder " + dir + ": " + e.getMessage()
          + ". Choose another with --out DIR.");
    }
    List<StageResult> results = new ArrayList<>();
    RunSummary.Completion completion = RunSummary.Completion.complete();
    Thread hook = new Thread(this::onSignal, "tokenmeter-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    RunFailedException failure = null;
    try (OpenAiEndpoint endpoint = OpenAiEndpoint.create(s.endpoint(), ticker);
        RequestsJsonlWriter jsonl = openJsonl(dir.resolve("requests.jsonl"), runStartNanos, s.rawTimes());
        CountingThread counting = new CountingThread("tokenmeter-counter");
        ProgressLine progress = new ProgressLine(err, s.progress())) {
      long loopThreadId = loopThreadId(endpoint);
      int planned = s.stages().plannedStages();
      StagePlan plan;
      while (!interrupted && (plan = s.stages().next(results)) != null) {
        err.println(describe(plan, planned) + RepeatingSequence.noteOf(s.stages(), plan));
        if (RepeatingSequence.freshConnections(s.stages(), plan)) {
          endpoint.closeIdleConnections().join(); // each repeat pays its connects, as a new client would
        }
        StageResult r = runStage(endpoint, plan, jsonl, counting, progress, loopThreadId);
        results.add(r);
        progress.pause();
        out.println();
        out.print(ConsoleReport.stage(r, planned));
        CostOptions.print(out, s.cost(), r);
        out.flush();
        if (interrupted) {
          completion = RunSummary.Completion.interrupted("stopped by the user during stage " + (plan.index() + 1));
          break;
        }
        failure = fatal(r);
        if (failure != null) {
          completion = RunSummary.Completion.error(failure.getMessage());
          break;
        }
        // Rewritten after every stage, so a process that dies keeps the stages done; the last
        // stage's write is the final one below.
        if (planned < 0 || results.size() < planned) {
          writeSummary(dir, startedAt, RunSummary.Completion.error(
              "run in progress (" + results.size() + (planned < 0 ? "" : " of " + planned)
                  + " stages done); if this remains, the process died"), results);
        }
      }
    } finally {
      writeSummary(dir, startedAt, completion, results);
      dev.tokenmeter.report.html.HtmlReport.writeQuietly(dir, err);
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down: the hook is running and waits for `written`
      }
    }
    RunAnalysis analysis = s.slo().analyze(results);
    if (results.size() > 1) {
      out.println();
      out.print(ConsoleReport.sweep(results, analysis.sweep()));
    }
    printRepeats(out, RepeatingSequence.repeatsOf(s.stages(), results));
    if (failure != null) {
      printResults(dir, out);
      throw failure;
    }
    sloExitCode = s.slo().finish(analysis, results, target(s.endpoint()), startedAt, out);
    printResults(dir, out);
    return results;
  }

  boolean interrupted() {
    return interrupted;
  }

  /**
   * Runs a command's plan with its output options and returns the exit code: the one entry point
   * of {@code bench} and {@code demo}.
   */
  static int execute(
      EndpointConfig endpoint,
      StageSequence stages,
      Function<StagePlan, RequestSource> requests,
      WorkloadOptions workload,
      OutputOptions output,
      long seed,
      Cost.Model cost,
      picocli.CommandLine.Model.CommandSpec spec,
      SloRun slo) {
    List<String> commandLine = new ArrayList<>();
    commandLine.add("tokenmeter");
    commandLine.add(spec.name());
    commandLine.addAll(spec.commandLine().getParseResult().originalArgs());
    BenchRun run =
        new BenchRun(
            new Settings(
                endpoint,
                stages,
                requests,
                output.timeouts(),
                output.outDir(Instant.now()),
                !output.quiet && ProgressLine.isTerminal(),
                commandLine,
                seed,
                workload.describe(),
                output.rawTimes,
                workload.outputCounter(),
                cost,
                slo),
            System.out,
            System.err);
    run.run();
    return run.interrupted() ? Main.EXIT_INTERRUPTED : run.sloExitCode;
  }

  private StageResult runStage(
      OpenAiEndpoint endpoint,
      StagePlan plan,
      RequestsJsonlWriter jsonl,
      CountingThread counting,
      ProgressLine progress,
      long loopThreadId) {
    StageRunner runner =
        new StageRunner(
            endpoint, plan, s.requests().apply(plan), s.timeouts(), ticker, s.slo().sink(jsonl), s.counter(), counting);
    current = runner;
    long cpu0 = processCpuNanos();
    long loopCpu0 = threadCpuNanos(loopThreadId);
    CompletableFuture<Long> done = runner.start();
    int planned = s.stages().plannedStages();
    String label =
        "[" + (plan.index() + 1) + (planned < 0 ? "" : "/" + planned) + " " + plan.load().label() + "]";
    progress.show(label, () -> runner.recorder() == null ? null : runner.recorder().live(ticker.nanos()));
    long endNanos;
    try {
      endNanos = done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      runner.interrupt("interrupted");
      endNanos = done.join();
    } catch (ExecutionException e) {
      throw new IllegalStateException("stage failed", e.getCause());
    }
    long cpu = processCpuNanos();
    long loopCpu = threadCpuNanos(loopThreadId);
    ClientCpu clientCpu =
        new ClientCpu(
            cpu0 < 0 || cpu < 0 ? -1 : cpu - cpu0,
            loopCpu0 < 0 || loopCpu < 0 ? -1 : loopCpu - loopCpu0,
            Runtime.getRuntime().availableProcessors());
    return s.slo().withGoodput(runner.recorder().finish(endNanos, clientCpu));
  }

  /** A stage where nothing succeeded and everything failed the same way stops the run. */
  static RunFailedException fatal(StageResult r) {
    if (r.requests().completed() > 0 || r.requests().failed() == 0) {
      return null;
    }
    Map<ErrorClass, Long> errors = r.errors();
    String classes = ConsoleReport.errors(errors);
    if (errors.containsKey(ErrorClass.CONNECT)) {
      return new RunFailedException(
          "every request of stage " + (r.plan().index() + 1) + " failed (" + classes
              + "): the server stopped accepting connections. Partial results were written.");
    }
    return new RunFailedException(
        "every request of stage " + (r.plan().index() + 1) + " failed (" + classes
            + "); see the error field in requests.jsonl. Partial results were written.");
  }

  private void onSignal() {
    interrupted = true;
    StageRunner r = current;
    if (r != null) {
      r.interrupt("interrupted (Ctrl-C)");
    }
    try {
      written.await(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void writeSummary(Path dir, Instant startedAt, RunSummary.Completion completion, List<StageResult> results) {
    EndpointConfig e = s.endpoint();
    RunSummary summary =
        new RunSummary(
            new RunSummary.Tool("tokenmeter", Version.VERSION),
            startedAt,
            Instant.now(),
            new RunSummary.Target(e.baseUrl().toString(), e.api().wireName(), e.model()),
            s.commandLine(),
            s.seed(),
            new RunSummary.Settings(timeouts(s.timeouts()), s.workload()),
            completion,
            results,
            RepeatingSequence.repeatsOf(s.stages(), results),
            CostOptions.pricing(s.cost(), results),
            s.slo().analyze(results));
    writeSummary(dir, summary, err);
  }

  private static void printResults(Path dir, PrintStream out) {
    out.println();
    out.println("Results: " + dir.resolve("summary.json") + " and " + dir.resolve("requests.jsonl"));
    dev.tokenmeter.report.html.HtmlReport.printLocation(dir, out);
  }

  /** The repeats table, when the run repeated its stages. */
  static void printRepeats(PrintStream out, Repeats repeats) {
    if (repeats != null && !repeats.groups().isEmpty()) {
      out.println();
      out.print(RepeatsReport.render(repeats));
    }
  }

  /**
   * Writes {@code summary.json} into {@code dir} atomically (a temporary file moved over it), so a
   * reader never sees half a file; a failure is reported on {@code err}, not thrown.
   */
  static void writeSummary(Path dir, RunSummary summary, PrintStream err) {
    try {
      Path tmp = dir.resolve("summary.json.tmp");
      SummaryJsonWriter.write(summary, tmp);
      Files.move(tmp, dir.resolve("summary.json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException ex) {
      err.println("tokenmeter: could not write " + dir.resolve("summary.json") + ": " + ex.getMessage());
    }
  }

  /** {@code http://127.0.0.1:8000 model llama}: the target as JUnit and Markdown name it. */
  private static String target(EndpointConfig e) {
    return e.baseUrl() + (e.model() == null ? "" : " model " + e.model());
  }

  static RunSummary.Timeouts timeouts(Timeouts t) {
    return new RunSummary.Timeouts(
        t.firstTokenNanos() > 0 ? Duration.ofNanos(t.firstTokenNanos()) : null,
        t.idleNanos() > 0 ? Duration.ofNanos(t.idleNanos()) : null,
        t.totalNanos() > 0 ? Duration.ofNanos(t.totalNanos()) : null);
  }

  static RequestsJsonlWriter openJsonl(Path file, long runStartNanos, boolean rawTimes) {
    try {
      return new RequestsJsonlWriter(file, runStartNanos, rawTimes);
    } catch (IOException e) {
      throw new RunFailedException("cannot write " + file + ": " + e.getMessage() + ". Choose another folder with --out DIR.");
    }
  }

  static String describe(StagePlan p, int count) {
    String window =
        switch (p.stop()) {
          case StopCondition.Duration d -> fmt(d.nanos()) + " window";
          case StopCondition.Requests r -> r.count() + " measured requests";
        };
    return "Stage " + (p.index() + 1) + (count < 0 ? "" : "/" + count) + ": " + p.load().label() + ", warm-up "
        + fmt(p.warmupNanos()) + ", " + window + ", cool-down " + fmt(p.cooldownNanos());
  }

  private static String fmt(long nanos) {
    double sec = nanos / 1e9;
    return sec == Math.rint(sec) ? (long) sec + "s" : String.format(java.util.Locale.ROOT, "%.2fs", sec);
  }

  private static long loopThreadId(OpenAiEndpoint endpoint) {
    CompletableFuture<Long> id = new CompletableFuture<>();
    endpoint.loop().execute(() -> id.complete(Thread.currentThread().threadId()));
    return id.join();
  }

  private static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  private static long threadCpuNanos(long threadId) {
    ThreadMXBean t = ManagementFactory.getThreadMXBean();
    return t.isThreadCpuTimeSupported() ? t.getThreadCpuTime(threadId) : -1;
  }
}
