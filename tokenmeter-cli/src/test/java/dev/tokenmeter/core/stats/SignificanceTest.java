package dev.tokenmeter.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The significance tests against known answers: hand-computed tables and SciPy 1.17.1 ({@code
 * scipy.stats.mannwhitneyu}, {@code fisher_exact}; the call is in each comment).
 */
class SignificanceTest {
  // SciPy's documentation example: mannwhitneyu(males, females).
  private static final double[] MALES = {19, 22, 16, 29, 24};
  private static final double[] FEMALES = {20, 11, 17, 12};

  @Test
  void exactSmallSampleMatchesScipy() {
    MannWhitney.Result r = MannWhitney.test(MALES, FEMALES);
    assertThat(r.uA()).isEqualTo(17.0); // hand count: 3 + 4 + 2 + 4 + 4 pairs with the male larger
    assertThat(r.exact()).isTrue();
    assertThat(r.pValue()).isCloseTo(14.0 / 126, within(1e-12)); // 0.1111111111111111
    assertThat(r.commonLanguage()).isCloseTo(3.0 / 20, within(1e-12));
  }

  @Test
  void normalApproximationMatchesScipy() {
    // mannwhitneyu(males, females, method="asymptotic") = 0.11134688653314041
    MannWhitney.Result r = MannWhitney.test(MALES, FEMALES, /* allowExact= */ false);
    assertThat(r.pValue()).isCloseTo(0.11134688653314041, within(1e-6));
    assertThat(r.exact()).isFalse();
  }

  @Test
  void tiesUseTheCorrectedVariance() {
    // Hand: ranks 1 | 3 3 3 | 5.5 5.5 | 7.5 7.5; U_a = 12.5 − 10 = 2.5; Σ(t³−t) = 24 + 6 + 6;
    // σ² = 16/12·(9 − 36/56); z = (8 − 2.5 − 0.5)/σ. mannwhitneyu(...) = 0.13416918012812584
    MannWhitney.Result r = MannWhitney.test(new double[] {1, 2, 2, 3}, new double[] {2, 3, 4, 4});
    assertThat(r.uA()).isEqualTo(2.5);
    assertThat(r.exact()).isFalse();
    assertThat(r.pValue()).isCloseTo(0.13416918012812584, within(1e-6));
  }

  @Test
  void mediumSamplesExactAndApproximate() {
    double[] a = {0.8, 1.9, 3.1, 4.4, 5.0, 6.2, 7.7, 8.1, 9.6, 10.3, 11.5, 12.0};
    double[] b = {2.2, 4.1, 5.5, 6.9, 8.3, 9.9, 10.8, 12.7, 13.4, 14.9, 15.2, 16.6, 17.8, 18.1};
    MannWhitney.Result exact = MannWhitney.test(a, b);
    assertThat(exact.uA()).isEqualTo(41.0);
    assertThat(exact.pValue()).isCloseTo(0.026976402248982678, within(1e-12)); // method="exact"
    assertThat(MannWhitney.test(a, b, false).pValue())
        .isCloseTo(0.02881823013021671, within(1e-6)); // method="asymptotic"
    assertThat(exact.commonLanguage()).isGreaterThan(0.5); // b tends larger
  }

  @Test
  void fullySeparatedSamples() {
    // R: wilcox.test(1:3, 4:6) p-value = 0.1 (2 of the C(6,3) = 20 rank subsets are as extreme).
    MannWhitney.Result small = MannWhitney.test(new double[] {1, 2, 3}, new double[] {4, 5, 6});
    assertThat(small.pValue()).isCloseTo(0.1, within(1e-12));
    assertThat(small.commonLanguage()).isEqualTo(1.0);
    assertThat(small.rankBiserial()).isEqualTo(1.0);
    double[] a = new double[100];
    double[] b = new double[100];
    for (int i = 0; i < 100; i++) {
      a[i] = i;
      b[i] = 100 + i;
    }
    // z = (5000 − 0.5)/sqrt(100·100·201/12) = 12.215; p = 2.562e-34
    MannWhitney.Result large = MannWhitney.test(a, b);
    assertThat(large.pValue()).isCloseTo(2.562143669163465e-34, within(1e-36));
  }

  @Test
  void identicalSamplesGiveOne() {
    double[] a = new double[500];
    SplittableRandom r = new SplittableRandom(1);
    for (int i = 0; i < a.length; i++) {
      a[i] = r.nextDouble(10, 20);
    }
    assertThat(MannWhitney.test(a, a.clone()).pValue()).isEqualTo(1.0);
    assertThat(MannWhitney.test(a, a.clone()).commonLanguage()).isEqualTo(0.5);
    assertThat(MannWhitney.test(new double[] {5, 5}, new double[] {5, 5, 5}).pValue()).isEqualTo(1.0);
    assertThat(MannWhitney.test(new double[0], a).pValue()).isNaN();
  }

  @Test
  void exactBelowFiftyPerSideWithoutTies() {
    // R's rule, which the library follows: exact when both samples have fewer than 50 values and
    // none is tied. 49 against 49 interleaved values: exact; 50 against 49, or one tie: not.
    double[] a49 = new double[49];
    double[] b49 = new double[49];
    for (int i = 0; i < 49; i++) {
      a49[i] = 2 * i;
      b49[i] = 2 * i + 3;
    }
    assertThat(MannWhitney.test(a49, b49).exact()).isTrue();
    double[] a50 = java.util.Arrays.copyOf(a49, 50);
    a50[49] = 1001;
    assertThat(MannWhitney.test(a50, b49).exact()).isFalse();
    double[] tied = a49.clone();
    tied[0] = b49[0];
    assertThat(MannWhitney.test(tied, b49).exact()).isFalse();
    // The exact p-value by enumeration for 3 against 4 separated values: 2 of C(7,3) = 35 subsets
    // are as extreme (U = 0 or 12), p = 2/35.
    assertThat(MannWhitney.test(new double[] {1, 2, 3}, new double[] {4, 5, 6, 7}).pValue())
        .isCloseTo(2.0 / 35, within(1e-12));
  }

  @Test
  void fisherExactMatchesKnownTables() {
    // Fisher's tea tasting, R fisher.test(matrix(c(3,1,1,3),2)): 34/70 = 0.4857143.
    assertThat(FisherExact.twoSided(3, 4, 1, 4)).isCloseTo(34.0 / 70, within(1e-12));
    // fisher_exact([[10, 990], [30, 970]]) = 0.0020083335618300093
    assertThat(FisherExact.twoSided(10, 1000, 30, 1000)).isCloseTo(0.0020083335618300093, within(1e-9));
    // fisher_exact([[0, 50], [5, 45]]) = 0.05628449442882433
    assertThat(FisherExact.twoSided(0, 50, 5, 50)).isCloseTo(0.05628449442882433, within(1e-9));
    assertThat(FisherExact.twoSided(0, 100, 0, 100)).isEqualTo(1.0);
    assertThat(FisherExact.twoSided(7, 100, 7, 100)).isEqualTo(1.0);
    assertThat(FisherExact.twoSided(0, 0, 0, 100)).isNaN();
  }

  @Test
  void holmStepsDown() {
    // sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → monotone 0.06
    double[] adjusted = Holm.adjust(new double[] {0.01, 0.04, Double.NaN, 0.03, 0.005});
    assertThat(adjusted[0]).isCloseTo(0.03, within(1e-12));
    assertThat(adjusted[1]).isCloseTo(0.06, within(1e-12));
    assertThat(adjusted[2]).isNaN();
    assertThat(adjusted[3]).isCloseTo(0.06, within(1e-12));
    assertThat(adjusted[4]).isCloseTo(0.02, within(1e-12));
    assertThat(Holm.adjust(new double[] {0.6, 0.9})).containsExactly(1.0, 1.0);
  }
}
