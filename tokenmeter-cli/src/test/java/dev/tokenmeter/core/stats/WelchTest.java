package dev.tokenmeter.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Welch's t-test against SciPy 1.17.1, {@code scipy.stats.ttest_ind(b, a, equal_var=False)}. */
class WelchTest {
  @Test
  void matchesScipyOnRunLikeValues() {
    double[] a = {101.2, 98.7, 103.4, 99.9, 100.8};
    double[] b = {104.1, 107.9, 103.3, 109.6, 105.2, 106.0};
    Welch.Result r = Welch.test(a, b, 0.95);
    // ttest_ind(b, a, equal_var=False): statistic 4.198336576516381, pvalue 0.002367265001231036,
    // df 8.905102690286665; .confidence_interval(0.95): (2.401237919603658, 8.03209541372965)
    assertThat(r.t()).isCloseTo(4.198336576516381, within(1e-9));
    assertThat(r.df()).isCloseTo(8.905102690286665, within(1e-9));
    assertThat(r.pValue()).isCloseTo(0.002367265001231036, within(1e-9));
    assertThat(r.low()).isCloseTo(2.401237919603658, within(1e-7));
    assertThat(r.high()).isCloseTo(8.03209541372965, within(1e-7));
    assertThat(r.difference()).isCloseTo(5.21666666666667, within(1e-9));
  }

  @Test
  void matchesScipyWithThreeRepeatsPerSide() {
    // ttest_ind(b, a, equal_var=False) with a = [12.0, 12.5, 11.8], b = [12.1, 12.4, 12.3]:
    // statistic 0.7372097807744833, pvalue 0.519885656487757, df 2.69554140127389;
    // .confidence_interval(0.9): (-0.3907921964409613, 0.7241255297742933)
    Welch.Result r = Welch.test(new double[] {12.0, 12.5, 11.8}, new double[] {12.1, 12.4, 12.3}, 0.9);
    assertThat(r.t()).isCloseTo(0.7372097807744833, within(1e-9));
    assertThat(r.df()).isCloseTo(2.69554140127389, within(1e-9));
    assertThat(r.pValue()).isCloseTo(0.519885656487757, within(1e-9));
    assertThat(r.low()).isCloseTo(-0.3907921964409613, within(1e-7));
    assertThat(r.high()).isCloseTo(0.7241255297742933, within(1e-7));
  }

  @Test
  void identicalRunsAreEqualForCertainAndShiftedOnesDifferent() {
    // A deterministic simulator repeats itself exactly: no spread, so the answer is certain.
    assertThat(Welch.test(new double[] {5, 5, 5}, new double[] {5, 5}, 0.95).pValue()).isEqualTo(1);
    Welch.Result shifted = Welch.test(new double[] {5, 5, 5}, new double[] {6, 6}, 0.95);
    assertThat(shifted.pValue()).isZero();
    assertThat(shifted.low()).isEqualTo(1);
    // Equal values whose computed variance rounding leaves a hair above zero are equal all the same.
    Welch.Result tenths = Welch.test(new double[] {0.1, 0.1, 0.1}, new double[] {0.1, 0.1, 0.1, 0.1}, 0.95);
    assertThat(tenths.pValue()).isEqualTo(1);
    assertThat(tenths.low()).isZero();
    assertThatIllegalArgumentException().isThrownBy(() -> Welch.test(new double[] {1}, new double[] {1, 2}, 0.95))
        .withMessageContaining("2 values per side");
  }
}
