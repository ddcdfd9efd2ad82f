package dev.tokenmeter.core.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Student's t against published tables (4 decimals) and the closed forms of df = 1 and 2. */
class StudentTTest {

  @ParameterizedTest(name = "t({0}, df={1}) = {2}")
  @CsvSource({
    "0.975, 1, 12.7062",
    "0.975, 2, 4.3027",
    "0.975, 4, 2.7764",
    "0.975, 9, 2.2622",
    "0.975, 29, 2.0452",
    "0.975, 100, 1.9840",
    "0.95, 4, 2.1318",
    "0.95, 10, 1.8125",
    "0.995, 9, 3.2498",
    "0.995, 1, 63.6567",
    "0.9995, 3, 12.9240",
    "0.9, 1000, 1.2824"
  })
  void quantileMatchesTables(double p, int df, double expected) {
    assertThat(StudentT.quantile(p, df)).isCloseTo(expected, within(0.00005));
  }

  @Test
  void closedFormsOfOneAndTwoDegreesOfFreedom() {
    for (double p = 0.51; p < 1; p += 0.01) {
      // df = 1 is the Cauchy distribution.
      assertThat(StudentT.quantile(p, 1)).isCloseTo(Math.tan(Math.PI * (p - 0.5)), within(1e-9));
      double two = (2 * p - 1) * Math.sqrt(2 / (4 * p * (1 - p)));
      assertThat(StudentT.quantile(p, 2)).isCloseTo(two, within(1e-9));
    }
  }

  @Test
  void quantileInvertsTheCdfAndIsSymmetric() {
    for (int df : new int[] {1, 3, 7, 30, 500}) {
      for (double p : new double[] {0.001, 0.2, 0.5, 0.8, 0.999}) {
        double t = StudentT.quantile(p, df);
        assertThat(StudentT.cdf(t, df)).isCloseTo(p, within(1e-10));
        assertThat(StudentT.quantile(1 - p, df)).isCloseTo(-t, within(1e-9));
      }
    }
    assertThat(StudentT.cdf(0, 5)).isEqualTo(0.5);
    // Large df tends to the normal: Φ(1.959964) = 0.975.
    assertThat(StudentT.cdf(1.959964, 1_000_000)).isCloseTo(0.975, within(1e-6));
  }

  @Test
  void lnGammaOfKnownValues() {
    assertThat(StudentT.lnGamma(1)).isCloseTo(0, within(1e-14));
    assertThat(StudentT.lnGamma(0.5)).isCloseTo(Math.log(Math.sqrt(Math.PI)), within(1e-14));
    assertThat(StudentT.lnGamma(10)).isCloseTo(Math.log(362_880), within(1e-12)); // 9!
  }

  @Test
  void refusesBadArguments() {
    assertThatThrownBy(() -> StudentT.quantile(1, 3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> StudentT.quantile(0.9, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
