package dev.tokenmeter.core.slo;

import dev.tokenmeter.core.analysis.LoadSearch;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.analysis.Sweep;
import java.util.List;

/**
 * A run's analysis across its stages: the degradation curve and its knee, the SLO verdicts, and
 * the capacity search's answer. Immutable; a pure function of the stages and the settings.
 *
 * @param sweep the curve, null when there are no stages
 * @param slo the SLO checked per stage, null when no SLO was given
 * @param search the capacity search's answer, null when no search ran
 */
public record RunAnalysis(Sweep sweep, SloReport slo, SearchResult search) {

  /** Nothing to analyse. */
  public static final RunAnalysis NONE = new RunAnalysis(null, null, null);

  /**
   * Analyses {@code stages}.
   *
   * @param sloOrNull the SLO, null when none was given
   * @param searchOrNull the capacity search that chose the stages, null when the stages were fixed
   */
  public static RunAnalysis of(
      List<StageResult> stages, double kneeTokensPerSecond, double kneeFraction, Slo sloOrNull, LoadSearch searchOrNull) {
    Sweep sweep = stages.isEmpty() ? null : Sweep.of(stages, kneeTokensPerSecond, kneeFraction);
    SloReport report = sloOrNull == null ? null : SloReport.evaluate(sloOrNull, stages);
    SearchResult search =
        searchOrNull == null || report == null ? null : SearchResult.of(searchOrNull, stages, report);
    return new RunAnalysis(sweep, report, search);
  }

  /**
   * Whether the run violated its SLO, for the exit code: with a search, when no load met it (the
   * probes above the answer are expected to fail); otherwise when any stage missed any objective.
   * False without an SLO.
   */
  public boolean sloViolated() {
    if (slo == null) {
      return false;
    }
    return search != null ? !search.found() : !slo.passed();
  }
}
