package dev.tokenmeter.run;

import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.report.StagePlanJson;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.List;

/**
 * Keeps each lane's {@code stage-in-progress.json} ({@link StagePlanJson}) while a bench runs: the
 * stage's plan (the lane's share) written as it starts, the file deleted when the run ends, so one
 * left behind means the process died in that stage. A failure to write is one line on {@code err},
 * never a stop: the run goes on, only its recovery would be poorer.
 */
final class StageJournal {
  private StageJournal() {}

  /** {@code plan} starts now, {@code offsetNanos} after the run's start. */
  static void started(List<LaneRun> lanes, StagePlan plan, long offsetNanos, PrintStream err) {
    StagePlan share = LoadSplit.share(plan, lanes.size());
    for (LaneRun lane : lanes) {
      try {
        StagePlanJson.write(lane.lane().outDir(), new StagePlanJson.Running(share, share.load().label(), offsetNanos));
      } catch (IOException e) {
        err.println("tokenmeter: could not write " + lane.lane().outDir().resolve(StagePlanJson.FILE_NAME)
            + ": " + e.getMessage() + " (the run goes on; a crash could not be recovered from)");
      }
    }
  }

  /** The run ended (finished, stopped or failed): its summary is final, no stage is in progress. */
  static void ended(List<LaneRun> lanes) {
    for (LaneRun lane : lanes) {
      try {
        Files.deleteIfExists(lane.lane().outDir().resolve(StagePlanJson.FILE_NAME));
      } catch (IOException e) {
        // a stale journal only matters to --recover, which refuses a finished run
      }
    }
  }
}
