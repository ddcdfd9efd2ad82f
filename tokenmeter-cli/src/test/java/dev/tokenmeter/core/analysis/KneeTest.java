package dev.tokenmeter.core.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Knee detection on constructed curves with hand-computed crossings. */
class KneeTest {

  /** Closed-loop stages at the given concurrencies with the given median per-user TPS. */
  private static List<StageResult> curve(int[] loads, double[] tps) {
    List<StageResult> stages = new ArrayList<>();
    for (int i = 0; i < loads.length; i++) {
      stages.add(ConstructedStages.closed(i, loads[i]).requests(100, 0).tps(tps[i]).build());
    }
    return stages;
  }

  @Test
  void crossingIsInterpolatedBetweenTheStagesAroundIt() {
    // 30 tok/s lies 12/20 of the way from c=32 (42) to c=64 (22): 32 + 0.6 × 32 = 51.2.
    Sweep s = Sweep.of(curve(new int[] {1, 8, 32, 64}, new double[] {80, 60, 42, 22}), 30, Double.NaN);
    Knee k = s.knee();
    assertThat(k.status()).isEqualTo(Knee.Status.CROSSED);
    assertThat(k.crossingLoad()).isCloseTo(51.2, within(1e-9));
    assertThat(k.lastMeetingIndex()).isEqualTo(2);
    assertThat(k.firstBelowIndex()).isEqualTo(3);
    assertThat(k.recovers()).isFalse();
    assertThat(k.statement()).isEqualTo(
        "Knee: per-user decode TPS (p50) falls below 30 tok/s between c=32 (42 tok/s) and c=64 (22 tok/s),"
            + " at about c=51.2 by linear interpolation; the last load meeting it is c=32.");
  }

  @Test
  void stagesAreTakenInLoadOrderWhateverTheRunOrder() {
    // A search runs 1, 2, 4, 8, 6: sorted, 30 is crossed between c=4 (40) and c=6 (20): 4 + 0.5 × 2.
    List<StageResult> run = curve(new int[] {1, 2, 4, 8, 6}, new double[] {50, 45, 40, 10, 20});
    Sweep s = Sweep.of(run, 30, Double.NaN);
    assertThat(s.points().stream().map(Sweep.Point::label)).containsExactly("c=1", "c=2", "c=4", "c=6", "c=8");
    assertThat(s.knee().crossingLoad()).isCloseTo(5.0, within(1e-9));
    assertThat(s.knee().firstBelowIndex()).isEqualTo(4); // c=6 ran fifth
  }

  @Test
  void aFractionOfTheLowestLoadCanSetAHigherBar() {
    // Half of c=1's 100 tok/s is 50, above the 30 tok/s threshold: crossed between c=10 (60) and
    // c=20 (40), at 10 + (60 − 50)/(60 − 40) × 10 = 15.
    Knee k = Sweep.of(curve(new int[] {1, 10, 20}, new double[] {100, 60, 40}), 30, 0.5).knee();
    assertThat(k.barTokensPerSecond()).isEqualTo(50);
    assertThat(k.barSource()).isEqualTo("50% of c=1's 100.0 tok/s");
    assertThat(k.crossingLoad()).isCloseTo(15, within(1e-9));
    // A threshold above the fraction's bar wins.
    assertThat(Sweep.of(curve(new int[] {1, 10, 20}, new double[] {100, 60, 40}), 70, 0.5).knee().crossingLoad())
        .isCloseTo(1 + 30.0 / 40 * 9, within(1e-9));
  }

  @Test
  void noneBelowAllBelowAndASingleStage() {
    Knee none = Sweep.of(curve(new int[] {1, 2}, new double[] {80, 70}), 30, Double.NaN).knee();
    assertThat(none.status()).isEqualTo(Knee.Status.NONE_BELOW);
    assertThat(none.lastMeetingIndex()).isEqualTo(1);
    assertThat(none.statement())
        .isEqualTo("No knee: per-user decode TPS (p50) stayed at or above 30 tok/s at every load tested, up to c=2 (70 tok/s).");

    Knee all = Sweep.of(curve(new int[] {4, 8}, new double[] {20, 10}), 30, Double.NaN).knee();
    assertThat(all.status()).isEqualTo(Knee.Status.ALL_BELOW);
    assertThat(all.lastMeetingIndex()).isEqualTo(-1);
    assertThat(all.crossingLoad()).isNaN();
    assertThat(all.statement()).startsWith("Knee: per-user decode TPS (p50) is below 30 tok/s already at the lowest load tested, c=4 (20 tok/s).");

    Knee single = Sweep.of(curve(new int[] {16}, new double[] {31}), 30, Double.NaN).knee();
    assertThat(single.status()).isEqualTo(Knee.Status.NONE_BELOW);
  }

  @Test
  void aNonMonotoneCurveReportsTheFirstCrossingAndFlagsTheRecovery() {
    Knee k = Sweep.of(curve(new int[] {1, 2, 4, 8}, new double[] {50, 25, 35, 10}), 30, Double.NaN).knee();
    assertThat(k.status()).isEqualTo(Knee.Status.CROSSED);
    assertThat(k.crossingLoad()).isCloseTo(1 + 20.0 / 25, within(1e-9));
    assertThat(k.recovers()).isTrue();
    assertThat(k.statement()).endsWith("It rises above the bar again at c=4: a noisy curve; longer windows would help.");
  }

  @Test
  void aStageWithNoTpsCountsAsBelowWithoutInterpolation() {
    List<StageResult> stages = new ArrayList<>(curve(new int[] {1}, new double[] {50}));
    stages.add(ConstructedStages.closed(1, 2).requests(0, 10).build());
    Knee k = Sweep.of(stages, 30, Double.NaN).knee();
    assertThat(k.status()).isEqualTo(Knee.Status.CROSSED);
    assertThat(k.crossingLoad()).isNaN();
    assertThat(k.statement()).contains("between c=1 (50 tok/s) and c=2 (- tok/s); the last load");
  }

  @Test
  void ratesInterpolateToo() {
    List<StageResult> stages = List.of(
        ConstructedStages.open(0, 1).requests(10, 0).tps(40).build(),
        ConstructedStages.open(1, 3).requests(10, 0).tps(20).build());
    Sweep s = Sweep.of(stages, 30, 0);
    assertThat(s.loadKind()).isEqualTo("rate");
    assertThat(s.kneeFraction()).isNaN();
    assertThat(s.knee().crossingLoad()).isCloseTo(2.0, within(1e-9));
    assertThat(s.knee().statement()).contains("at about rate=2/s");
  }

  @Test
  void noBarNoKnee() {
    Knee k = Sweep.of(curve(new int[] {1}, new double[] {50}), 0, Double.NaN).knee();
    assertThat(k.status()).isEqualTo(Knee.Status.NO_BAR);
  }
}
