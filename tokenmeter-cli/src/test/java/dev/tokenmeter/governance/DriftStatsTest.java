package dev.tokenmeter.governance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** PSI and KS on data small enough to work out by hand. */
class DriftStatsTest {

  @Test
  void psiOfTwoBinsByHand() {
    // (0.25 − 0.5)·ln(0.25/0.5) + (0.75 − 0.5)·ln(0.75/0.5) = 0.173287 + 0.101366
    assertThat(DriftStats.psiOfShares(new double[] {0.5, 0.5}, new double[] {0.25, 0.75}))
        .isCloseTo(0.274653, within(1e-6));
    assertThat(DriftStats.psiOfShares(new double[] {0.3, 0.7}, new double[] {0.3, 0.7})).isZero();
  }

  @Test
  void psiBinsAreTheBaselinesDecilesAndEmptyBinsAreFloored() {
    double[] base = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    double[] live = {6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    DriftStats.Psi psi = DriftStats.psi(base, live);
    assertThat(psi.edges()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9);
    assertThat(psi.bins()).isEqualTo(10);
    // bins 1..5 empty live (floored at 1e-4): 5·(1e-4 − 0.1)·ln(1e-4/0.1) = 3.450425;
    // bins 6..9 equal; last bin 0.6 vs 0.1: 0.5·ln 6 = 0.895880
    assertThat(psi.value()).isCloseTo(4.346305, within(1e-5));
  }

  @Test
  void aFixedLengthBenchmarkHasOneEdgeAndTwoBins() {
    double[] base = {512, 512, 512, 512};
    assertThat(DriftStats.decileEdges(base)).containsExactly(512);
    DriftStats.Psi psi = DriftStats.psi(base, new double[] {1200, 1210, 1190, 1205});
    // (1e-4 − 1)·ln(1e-4) + (1 − 1e-4)·ln(1/1e-4) = 2 · 0.9999 · 9.210340
    assertThat(psi.value()).isCloseTo(18.418839, within(1e-5));
  }

  @Test
  void modelMixPsiOverTheUnionOfModels() {
    // base a 1.0, b 0 (floored); live a 0.5, b 0.5: (0.5 − 1)·ln 0.5 + (0.5 − 1e-4)·ln(0.5/1e-4)
    double psi = DriftStats.psi(Map.of("a", 10L), Map.of("a", 5L, "b", 5L));
    assertThat(psi).isCloseTo(0.346574 + 0.4999 * Math.log(5000), within(1e-6));
  }

  @Test
  void ksOfSeparatedSamplesIsTheExactTwoOverSeventy() {
    DriftStats.Ks ks = DriftStats.ks(new double[] {1, 2, 3, 4}, new double[] {5, 6, 7, 8});
    assertThat(ks.statistic()).isEqualTo(1.0);
    // both orders of 4 + 4 values with D = 1 among C(8,4) = 70 equally likely splits
    assertThat(ks.pValue()).isCloseTo(2.0 / 70, within(1e-9));
  }

  @Test
  void ksOfOneSampleAgainstItselfDoesNotReject() {
    double[] a = {3, 3, 4, 5, 5, 5, 8, 9, 9, 12};
    DriftStats.Ks ks = DriftStats.ks(a, a.clone());
    assertThat(ks.statistic()).isZero();
    assertThat(ks.pValue()).isGreaterThan(0.99);
    assertThat(DriftStats.ks(a, a.clone()).pValue()).isEqualTo(ks.pValue()); // seeded: same data, same p
  }

  @Test
  void medianOfOddAndEvenCounts() {
    assertThat(DriftStats.median(new double[] {5, 1, 3})).isEqualTo(3);
    assertThat(DriftStats.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    assertThat(DriftStats.median(new double[0])).isNaN();
  }
}
