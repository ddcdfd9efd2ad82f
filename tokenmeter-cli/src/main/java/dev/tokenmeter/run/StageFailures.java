package dev.tokenmeter.run;

import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.report.ConsoleReport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Why a run stops after a stage, as the one line the user reads: a stage {@link TargetWatch}
 * stopped (the target unreachable, or its first requests failing alike), or a stage where nothing
 * succeeded. Each line says what the server said and what to change ({@link FailureHint}).
 * Stateless; called on the run's thread after the stage ended.
 */
final class StageFailures {
  private StageFailures() {}

  /**
   * The first lane whose stage {@link TargetWatch} stopped during {@code plan}, as the run's
   * failure: one line with the server's own words and the likely fix ({@link FailureHint}).
   */
  static RunFailedException stopped(List<LaneRun> lanes, StagePlan plan) {
    for (LaneRun lane : lanes) {
      TargetWatch.Verdict v = lane.stopVerdict();
      if (v != null) {
        String who = lanes.size() == 1 ? "" : "variant " + lane.lane().name() + ": ";
        return new RunFailedException(who + stopMessage(v, plan.index(), lane.lane().endpoint()));
      }
    }
    return null;
  }

  /** The line a run stopped by {@code v} in stage {@code stageIndex} (from 0) ends with. */
  static String stopMessage(TargetWatch.Verdict v, int stageIndex, EndpointConfig e) {
    return switch (v) {
      case TargetWatch.Unreachable u -> "the server at " + e.baseUrl() + " stopped accepting connections during stage "
          + (stageIndex + 1) + ": " + u.describe() + ". Partial results were written; check that the server is up.";
      case TargetWatch.Rejected r -> "stage " + (stageIndex + 1) + " stopped: its first " + r.count()
          + " requests all failed the same way; " + FailureHint.explain(r.first(), e, models(e))
          + ". Partial results were written; --fail-fast 0 keeps a stage going whatever fails.";
    };
  }

  /** What the server lists, asked again only when a hint needs it. */
  private static Supplier<List<String>> models(EndpointConfig e) {
    return () -> Preflight.models(e, Duration.ofSeconds(5));
  }

  /**
   * The first lane whose stage was {@link #fatal(StageResult, String)}, named when the run has
   * variants; {@code rs} are the lanes' results of the stage, in lane order.
   */
  static RunFailedException fatal(List<LaneRun> lanes, List<StageResult> rs) {
    for (int i = 0; i < rs.size(); i++) {
      LaneRun lane = lanes.get(i);
      Outcome first = lane.firstFailure();
      RunFailedException f = fatal(rs.get(i),
          first == null ? null : FailureHint.explain(first, lane.lane().endpoint(), models(lane.lane().endpoint())));
      if (f != null) {
        return lanes.size() == 1 ? f
            : new RunFailedException("variant " + lane.lane().name() + ": " + f.getMessage());
      }
    }
    return null;
  }

  /**
   * A stage where nothing succeeded stops the run. {@code why} is the first failure explained
   * ({@link FailureHint}), or null when unknown (then requests.jsonl is named); a stage with
   * connection failures says the server stopped accepting them.
   */
  static RunFailedException fatal(StageResult r, String why) {
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
        "every request of stage " + (r.plan().index() + 1) + " failed (" + classes + "); "
            + (why == null ? "see the error field in requests.jsonl" : "the first: " + why)
            + ". Partial results were written.");
  }
}
