package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LengthSpecTest {

  private static final String EXAMPLES =
      "examples: 512, uniform:256,1024, normal:512,128, lognormal:512,256";

  @Test
  void parsesEveryForm() {
    assertThat(LengthSpec.parse("512")).isEqualTo(new LengthSpec.Fixed(512));
    assertThat(LengthSpec.parse("fixed:512")).isEqualTo(new LengthSpec.Fixed(512));
    assertThat(LengthSpec.parse(" Uniform: 256 , 1024 "))
        .isEqualTo(new LengthSpec.Uniform(256, 1024));
    assertThat(LengthSpec.parse("normal:512,128")).isEqualTo(new LengthSpec.Normal(512, 128));
    assertThat(LengthSpec.parse("normal:100.5,0")).isEqualTo(new LengthSpec.Normal(100.5, 0));
    assertThat(LengthSpec.parse("lognormal:512,256")).isEqualTo(new LengthSpec.LogNormal(512, 256));
    assertThat(LengthSpec.parse("log-normal:512,256"))
        .isEqualTo(new LengthSpec.LogNormal(512, 256));
  }

  @Test
  void describesItselfShortly() {
    assertThat(LengthSpec.parse("512").describe()).isEqualTo("fixed 512");
    assertThat(LengthSpec.parse("uniform:256,1024").describe()).isEqualTo("uniform 256..1024");
    assertThat(LengthSpec.parse("normal:512,128").describe()).isEqualTo("normal(mean 512, sd 128)");
    assertThat(LengthSpec.parse("lognormal:512,25.5").describe())
        .isEqualTo("lognormal(mean 512, sd 25.5)");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "uniform:9,3        | 'uniform:9,3': min must not exceed max",
        "0                  | '0': length must be at least 1, got 0",
        "-5                 | '-5': length must be at least 1, got -5",
        "abc                | 'abc': 'abc' is not a whole number of tokens",
        "512.5              | '512.5': '512.5' is not a whole number of tokens",
        "fixed:             | 'fixed:': missing number at position 1",
        "uniform:256        | 'uniform:256': expected 2 numbers separated by a comma, got 1",
        "uniform:0,10       | 'uniform:0,10': min must be at least 1, got 0",
        "normal:512         | 'normal:512': expected 2 numbers separated by a comma, got 1",
        "normal:512,-1      | 'normal:512,-1': sd must not be negative, got -1",
        "normal:0.5,1       | 'normal:0.5,1': mean must be at least 1, got 0.5",
        "lognormal:x,3      | 'lognormal:x,3': 'x' is not a number",
        "lognormal:NaN,3    | 'lognormal:NaN,3': 'NaN' is not a number",
        "poisson:3          | 'poisson:3': unknown distribution 'poisson' (use fixed, uniform,"
            + " normal or lognormal)",
        "fixed:1,2          | 'fixed:1,2': expected 1 number, got 2",
      })
  void rejectsBadSpecsNamingTheProblemAndShowingExamples(String spec, String message) {
    assertThatThrownBy(() -> LengthSpec.parse(spec))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message + "; " + EXAMPLES);
  }

  @Test
  void rejectsEmptySpecs() {
    assertThatThrownBy(() -> LengthSpec.parse("  "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("empty length spec; " + EXAMPLES);
    assertThatThrownBy(() -> LengthSpec.parse(null)).hasMessage("empty length spec; " + EXAMPLES);
  }

  @Test
  void fixedAlwaysGivesItsLength() {
    SplittableRandom r = new SplittableRandom(1);
    for (int i = 0; i < 100; i++) {
      assertThat(new LengthSpec.Fixed(77).sample(r)).isEqualTo(77);
    }
  }

  @Test
  void uniformCoversBothEndsAndHasTheRightMoments() {
    double[] m = moments(new LengthSpec.Uniform(10, 20), 100_000);
    assertThat(m[2]).isEqualTo(10);
    assertThat(m[3]).isEqualTo(20);
    // Discrete uniform over 11 values: mean 15, variance (11^2 - 1) / 12 = 10.
    assertThat(m[0]).isCloseTo(15, within(0.05));
    assertThat(m[1]).isCloseTo(Math.sqrt(10), within(0.05));
  }

  @Test
  void normalHasItsMeanAndSd() {
    double[] m = moments(new LengthSpec.Normal(512, 128), 100_000);
    // Standard error of the mean 128 / sqrt(1e5) = 0.4 tokens.
    assertThat(m[0]).isCloseTo(512, within(2.0));
    assertThat(m[1]).isCloseTo(128, within(2.0));
    assertThat(m[2]).isGreaterThanOrEqualTo(1);
  }

  @Test
  void normalIsTruncatedAtOneByRedrawing() {
    // Half the mass of normal(1, 100) rounds below 1: redrawn, so every sample is >= 1 and the
    // samples are the draws >= 0.5, mean 1 + 100 * phi(0.005) / (1 - Phi(-0.005)) = 80.5, rather
    // than a pile at 1 (clamping would give a mean near 40.7).
    double[] m = moments(new LengthSpec.Normal(1, 100), 100_000);
    assertThat(m[2]).isEqualTo(1);
    assertThat(m[0]).isCloseTo(80.5, within(1.0));
  }

  @Test
  void logNormalMatchesTheTokenCountsMeanAndSd() {
    LengthSpec.LogNormal spec = new LengthSpec.LogNormal(512, 256);
    assertThat(spec.sigma()).isCloseTo(0.47238, within(1e-5));
    assertThat(spec.mu()).isCloseTo(6.12675, within(1e-5));
    double[] m = moments(spec, 200_000);
    // Standard error of the mean 256 / sqrt(2e5) = 0.57 tokens; sd converges slower (skew).
    assertThat(m[0]).isCloseTo(512, within(3.0));
    assertThat(m[1]).isCloseTo(256, within(6.0));
    assertThat(m[2]).isGreaterThanOrEqualTo(1);
  }

  @Test
  void samplesAreDeterministicForASeed() {
    LengthSpec spec = LengthSpec.parse("lognormal:300,200");
    SplittableRandom a = new SplittableRandom(9);
    SplittableRandom b = new SplittableRandom(9);
    SplittableRandom c = new SplittableRandom(10);
    int differ = 0;
    for (int i = 0; i < 100; i++) {
      int x = spec.sample(a);
      assertThat(spec.sample(b)).isEqualTo(x);
      differ += spec.sample(c) != x ? 1 : 0;
    }
    assertThat(differ).isGreaterThan(90);
  }

  @Test
  void meanIsTheDistributionsMean() {
    assertThat(LengthSpec.parse("uniform:1,4").mean()).isEqualTo(2.5);
    assertThat(LengthSpec.parse("lognormal:300,200").mean()).isEqualTo(300);
    assertThat(LengthSpec.parse("7").mean()).isEqualTo(7);
  }

  /** Mean, sd, min, max of n samples. */
  private static double[] moments(LengthSpec spec, int n) {
    SplittableRandom r = new SplittableRandom(20240607);
    double sum = 0;
    double sumSq = 0;
    int min = Integer.MAX_VALUE;
    int max = Integer.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      int x = spec.sample(r);
      sum += x;
      sumSq += (double) x * x;
      min = Math.min(min, x);
      max = Math.max(max, x);
    }
    double mean = sum / n;
    return new double[] {mean, Math.sqrt(sumSq / n - mean * mean), min, max};
  }
}
