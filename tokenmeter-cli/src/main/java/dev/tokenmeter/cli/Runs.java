package dev.tokenmeter.cli;

import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.run.BenchRun;
import dev.tokenmeter.run.LiveExport;
import dev.tokenmeter.run.ProgressLine;
import dev.tokenmeter.run.ServerWatch;
import dev.tokenmeter.run.SloRun;
import dev.tokenmeter.run.StageSequence;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** Hands a command's resolved options to a run and turns how it ended into the exit code. */
final class Runs {
  private Runs() {}

  /**
   * Runs a command's plan with its output options and returns the exit code: the one entry point
   * of {@code bench} and {@code demo}. One lane is a plain run into the results folder; more are
   * variants, each into the subfolder of its name. {@code export} is the live export ({@code bench
   * --metrics-port}, {@code --otlp}; {@link LiveExport.Settings#NONE} for none), closed after the run;
   * {@code serverMetrics} is {@code --server-metrics}, or null; {@code eventLoops} each lane's event
   * loops ({@code --event-loops}).
   */
  static int bench(
      Path outDir,
      List<BenchRun.Lane> lanes,
      StageSequence stages,
      WorkloadOptions workload,
      OutputOptions output,
      long seed,
      Cost.Model cost,
      CommandSpec spec,
      SloRun slo,
      ServerWatch.Settings serverMetrics,
      LiveExport.Settings exportSettings,
      int eventLoops) {
    return bench(outDir, lanes, stages, workload, output, seed, cost, spec, slo, serverMetrics, exportSettings,
        eventLoops, null, null);
  }

  /**
   * {@link #bench} with {@code --gpu-metrics} ({@code gpuMetrics}, null without) and a warm-up
   * before the first stage ({@code warmup}, null without).
   */
  static int bench(
      Path outDir,
      List<BenchRun.Lane> lanes,
      StageSequence stages,
      WorkloadOptions workload,
      OutputOptions output,
      long seed,
      Cost.Model cost,
      CommandSpec spec,
      SloRun slo,
      ServerWatch.Settings serverMetrics,
      LiveExport.Settings exportSettings,
      int eventLoops,
      dev.tokenmeter.run.GpuWatch.Settings gpuMetrics,
      dev.tokenmeter.run.Warmup warmup) {
    try (LiveExport export = LiveExport.start(exportSettings, java.time.InstantSource.system(), System.err)) {
      BenchRun run =
          new BenchRun(
              new BenchRun.Settings(
                  lanes,
                  stages,
                  output.timeouts(),
                  outDir,
                  !output.quiet && ProgressLine.isTerminal(),
                  commandLine(spec),
                  seed,
                  output.rawTimes,
                  workload.outputCounter(),
                  cost,
                  slo,
                  serverMetrics,
                  eventLoops,
                  output.failFast(),
                  gpuMetrics),
              export,
              System.out,
              System.err).warmUpFirst(warmup);
      run.run();
      return exitCode(run.interrupted(), run.sloViolated());
    }
  }

  /**
   * {@code bench --workers N}: runs the coordinator until every worker finished or was lost, then
   * writes the one merged results folder; returns the exit code ({@link
   * dev.tokenmeter.run.WorkerResults#write}).
   */
  static int coordinate(dev.tokenmeter.run.Coordinator.Settings settings, List<String> commandLine) {
    try (var coordinator = dev.tokenmeter.run.Coordinator.start(settings, dev.tokenmeter.core.time.Ticker.system())) {
      System.err.println("tokenmeter: coordinator listening on " + coordinator.url() + " for " + settings.workers()
          + " workers (" + (settings.launchLocal() ? "starting them here" : "start them with 'tokenmeter worker"
          + " --coordinator URL'") + ")");
      long cpu0 = cpuNanos();
      var states = coordinator.run(System.err);
      long cpu = cpuNanos() - cpu0;
      int code = dev.tokenmeter.run.WorkerResults.write(states, settings.outDir(), commandLine, System.out, System.err);
      // The coordinator's own cost (docs/WORKERS.md): CPU while the workers ran, and what they sent.
      System.out.printf(java.util.Locale.ROOT, "Coordinator: %.2f CPU-seconds while the workers ran (%.3f per worker),"
          + " %.1f MB received from them%n", cpu / 1e9, cpu / 1e9 / settings.workers(), coordinator.receivedBytes() / 1e6);
      return code;
    }
  }

  private static long cpuNanos() {
    return ProcessHandle.current().info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
  }

  /** 130 when the user stopped the run, else 3 when the SLO was violated, else 0. */
  static int exitCode(boolean interrupted, boolean sloViolated) {
    return interrupted ? Main.EXIT_INTERRUPTED : sloViolated ? Main.EXIT_SLO_VIOLATED : Main.EXIT_OK;
  }

  /**
   * {@code tokenmeter bench --url ...}: the command line as given, for summary.json. The root's
   * arguments already hold the command's name (a subcommand's parse result shares them: adding
   * {@code spec.name()} wrote {@code tokenmeter bench bench}).
   */
  static List<String> commandLine(CommandSpec spec) {
    List<String> commandLine = new ArrayList<>();
    commandLine.add("tokenmeter");
    commandLine.addAll(spec.root().commandLine().getParseResult().originalArgs());
    return commandLine;
  }
}
