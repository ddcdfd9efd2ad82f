package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.StagePlan;
import java.util.List;

/**
 * Decides a run's stages one at a time, so that a run can choose its next load from the results so
 * far (a search for the highest load within an SLO) as well as follow a fixed list. Used by
 * {@code bench}, {@code demo} and {@code simulate} alike. Not thread-safe: one run asks it, in
 * order.
 */
public interface StageSequence {

  /**
   * The next stage to run, or null when the run is over.
   *
   * @param done the results of the stages run so far, in run order
   */
  StagePlan next(List<StageResult> done);

  /** How many stages the run will have, or -1 when the sequence decides as it goes. */
  int plannedStages();

  /** A fixed list of stages, run in order. */
  static StageSequence of(List<StagePlan> plans) {
    List<StagePlan> copy = List.copyOf(plans);
    return new StageSequence() {
      @Override
      public StagePlan next(List<StageResult> done) {
        return done.size() < copy.size() ? copy.get(done.size()) : null;
      }

      @Override
      public int plannedStages() {
        return copy.size();
      }
    };
  }
}
