package dev.tokenmeter.simulator.accuracy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.simulator.accuracy.AccuracyFit.FoldFit;
import org.junit.jupiter.api.Test;

/** Which candidate k a held-out fold keeps ({@link AccuracyFit#isBetter}); no simulation. */
class FoldChoiceTest {
  private static final FitParams ANY = FitParams.committed();

  private static FoldFit fit(double objective) {
    return new FoldFit(ANY, Double.isNaN(objective) ? AccuracyFit.FOLD_ROUNDS : 2, objective);
  }

  @Test
  void theFirstCandidateStandsUntilAnotherBeatsIt() {
    assertThat(AccuracyFit.isBetter(fit(1.0), null)).isTrue();
    assertThat(AccuracyFit.isBetter(fit(0.9), fit(1.0))).isTrue();
    assertThat(AccuracyFit.isBetter(fit(1.1), fit(1.0))).isFalse();
    assertThat(AccuracyFit.isBetter(fit(1.0), fit(1.0))).as("a tie keeps the earlier k").isFalse();
  }

  @Test
  void aFixedPointBeatsAFitStillMovingWhicheverComesFirst() {
    // Seen with a dataset the committed factors were not fitted on: k = 1 still moving after six
    // rounds, k = 4 at a fixed point of objective 0.971; the fold kept k = 1.
    assertThat(AccuracyFit.isBetter(fit(0.971), fit(Double.NaN))).isTrue();
    assertThat(AccuracyFit.isBetter(fit(Double.NaN), fit(0.971))).isFalse();
    assertThat(AccuracyFit.isBetter(fit(Double.NaN), fit(Double.NaN))).isFalse();
    assertThat(AccuracyFit.isBetter(fit(Double.NaN), null)).as("none converged: the first stands").isTrue();
  }
}
