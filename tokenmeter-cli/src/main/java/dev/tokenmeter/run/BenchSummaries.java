package dev.tokenmeter.run;

import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.core.Version;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.loadgen.Timeouts;
import dev.tokenmeter.report.RunSummary;
import dev.tokenmeter.report.SummaryJsonWriter;
import dev.tokenmeter.scrape.GpuStage;
import dev.tokenmeter.scrape.ServerStage;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes each lane's {@code summary.json} for a {@link BenchRun}: at the start and after every
 * stage as "run in progress" (so a process that dies leaves a folder {@code report --recover} can
 * finish), and once at the end with the run's completion. Owns how a lane's summary is assembled:
 * the target, settings and workload (with its warm-up's counts when it had one), the stages so far,
 * their repeats, cost and SLO analysis, and the server and GPU figures, which only the first lane
 * carries. Reads the run's lanes and warm-ups as the run adds them; called from the run's thread.
 */
final class BenchSummaries {
  private final BenchRun.Settings s;
  private final List<LaneRun> lanes;
  private final List<Warmup.Result> warmedUp;
  private final PrintStream err;

  /** Over the run's own {@code lanes} and {@code warmedUp} lists, which it fills as it goes. */
  BenchSummaries(BenchRun.Settings s, List<LaneRun> lanes, List<Warmup.Result> warmedUp, PrintStream err) {
    this.s = s;
    this.lanes = lanes;
    this.warmedUp = warmedUp;
    this.err = err;
  }

  /** The completion a summary says while the run goes on: {@code done} of {@code planned} (-1: open-ended) stages. */
  static RunSummary.Completion inProgress(int done, int planned) {
    return RunSummary.Completion.error("run in progress (" + done + (planned < 0 ? "" : " of " + planned)
        + " stages done); if this remains, the process died: run 'tokenmeter report --recover DIR'");
  }

  /** Every lane's summary.json, now; {@code server} and {@code gpu} are null when not watched. */
  void write(Instant startedAt, RunSummary.Completion completion, ServerWatch server, GpuWatch gpu) {
    for (LaneRun lane : lanes) {
      write(lane, startedAt, completion, server, gpu);
    }
  }

  private void write(LaneRun lane, Instant startedAt, RunSummary.Completion completion, ServerWatch server,
      GpuWatch gpu) {
    EndpointConfig e = lane.lane().endpoint();
    List<StageResult> results = lane.results();
    RunSummary summary =
        new RunSummary(
            new RunSummary.Tool("tokenmeter", Version.VERSION),
            startedAt,
            Instant.now(),
            new RunSummary.Target(e.baseUrl().toString(), e.api().wireName(), e.model()),
            s.commandLine(),
            s.seed(),
            new RunSummary.Settings(timeouts(s.timeouts()), workload(lane)),
            completion,
            results,
            RepeatingSequence.repeatsOf(s.stages(), results),
            RunCost.pricing(s.cost(), results),
            s.slo().analyze(results),
            server != null && lane == lanes.get(0) ? serverStages(server, results.size()) : null,
            gpu != null && lane == lanes.get(0) ? gpuStages(gpu, results.size()) : null);
    writeAtomically(lane.lane().outDir(), summary, err);
  }

  /** The lane's workload for summary.json, with its warm-up's counts when it had one. */
  private Map<String, Object> workload(LaneRun lane) {
    int i = lanes.indexOf(lane);
    if (i < 0 || i >= warmedUp.size()) {
      return lane.lane().workload();
    }
    Map<String, Object> m = new LinkedHashMap<>(lane.lane().workload());
    m.putAll(warmedUp.get(i).describe());
    return m;
  }

  /** The server figures of the first {@code n} stages (a stage interrupted before they were taken: null). */
  private static List<ServerStage> serverStages(ServerWatch server, int n) {
    List<ServerStage> all = new ArrayList<>(server.stages());
    while (all.size() < n) {
      all.add(null);
    }
    return all.subList(0, n);
  }

  /** The GPU figures of the first {@code n} stages (a stage interrupted before they were taken: null). */
  private static List<GpuStage> gpuStages(GpuWatch gpu, int n) {
    List<GpuStage> all = new ArrayList<>(gpu.stages());
    while (all.size() < n) {
      all.add(null);
    }
    return all.subList(0, n);
  }

  /** {@link BenchRun#writeSummary}: a temporary file moved over summary.json; a failure said on {@code err}. */
  static void writeAtomically(Path dir, RunSummary summary, PrintStream err) {
    try {
      Path tmp = dir.resolve("summary.json.tmp");
      SummaryJsonWriter.write(summary, tmp);
      Files.move(tmp, dir.resolve("summary.json"), StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException ex) {
      err.println("tokenmeter: could not write " + dir.resolve("summary.json") + ": " + ex.getMessage());
    }
  }

  /** {@link BenchRun#timeouts}: each limit as a Duration, null when off (0). */
  static RunSummary.Timeouts timeouts(Timeouts t) {
    return new RunSummary.Timeouts(
        t.firstTokenNanos() > 0 ? Duration.ofNanos(t.firstTokenNanos()) : null,
        t.idleNanos() > 0 ? Duration.ofNanos(t.idleNanos()) : null,
        t.totalNanos() > 0 ? Duration.ofNanos(t.totalNanos()) : null);
  }
}
