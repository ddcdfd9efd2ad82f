package dev.tokenmeter.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ArrivalScheduleTest {

  private static final long SECOND = 1_000_000_000L;

  private static ArrivalSchedule schedule(double rate, Arrivals arrivals, long seed) {
    return ArrivalSchedule.of(new LoadModel.Open(rate, arrivals, OptionalInt.empty()), seed);
  }

  private static long[] offsets(ArrivalSchedule schedule, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = schedule.nextOffsetNanos();
    }
    return out;
  }

  private static int countBefore(ArrivalSchedule schedule, long durationNanos) {
    int count = 0;
    while (schedule.nextOffsetNanos() < durationNanos) {
      count++;
    }
    return count;
  }

  // ---- constant ----

  @Test
  void constantThreePerSecondHasHandComputedOffsets() {
    long[] got = offsets(schedule(3, new Arrivals.Constant(), 1), 31);
    // i * 1e9 / 3 rounded: 333_333_333.33 -> ...333, 666_666_666.67 -> ...667.
    assertThat(got[0]).isZero();
    assertThat(got[1]).isEqualTo(333_333_333L);
    assertThat(got[2]).isEqualTo(666_666_667L);
    assertThat(got[3]).isEqualTo(1_000_000_000L);
    assertThat(got[29]).isEqualTo(9_666_666_667L);
    assertThat(got[30]).isEqualTo(10 * SECOND); // outside [0, 10 s)
  }

  @ParameterizedTest(name = "rate {0}/s over {1} s -> {2} arrivals")
  @CsvSource({
    "3, 10, 30",
    "7, 3, 21",
    "0.5, 10, 5",
    "0.3, 100, 30",
    "13, 1, 13",
    "2.5, 4, 10",
    "1000, 2, 2000",
    "0.7, 10, 7", // 10 s * 0.7 = 7 exactly; arrival 7 sits at 10 s, outside
    "0.8, 10, 8",
    "3, 10.1, 31", // arrival 30 at 10 s is inside [0, 10.1 s)
  })
  void constantGivesExactlyRateTimesDurationArrivalsInTheWindow(
      double rate, double seconds, int expected) {
    long durationNanos = Math.round(seconds * SECOND);
    assertThat(countBefore(schedule(rate, new Arrivals.Constant(), 42), durationNanos))
        .isEqualTo(expected);
  }

  @Test
  void constantDoesNotDriftOverTenMillionArrivals() {
    ArrivalSchedule s = schedule(1_000_000, new Arrivals.Constant(), 0);
    long last = -1;
    for (int i = 0; i < 10_000_000; i++) {
      last = s.nextOffsetNanos();
    }
    assertThat(last).isEqualTo(9_999_999L * 1_000L); // arrival 9_999_999 at 9_999_999 us exactly

    ArrivalSchedule third = schedule(3, new Arrivals.Constant(), 0);
    for (int i = 0; i < 3_000_000; i++) {
      third.nextOffsetNanos();
    }
    assertThat(third.nextOffsetNanos()).isEqualTo(1_000_000 * SECOND); // arrival 3e6 at 1e6 s
  }

  // ---- random kinds ----

  static Stream<Arrivals> randomKinds() {
    return Stream.of(
        new Arrivals.Poisson(),
        new Arrivals.Gamma(0.05),
        new Arrivals.Gamma(0.25),
        new Arrivals.Gamma(1),
        new Arrivals.Gamma(4),
        new Arrivals.Gamma(100));
  }

  @ParameterizedTest
  @MethodSource("randomKinds")
  void sameSeedGivesSameScheduleAndOtherSeedsDiffer(Arrivals arrivals) {
    long[] a = offsets(schedule(20, arrivals, 1234), 1_000);
    long[] b = offsets(schedule(20, arrivals, 1234), 1_000);
    long[] c = offsets(schedule(20, arrivals, 1235), 1_000);
    assertThat(a).isEqualTo(b);
    assertThat(a).isNotEqualTo(c);
    int same = 0;
    for (int i = 0; i < a.length; i++) {
      same += a[i] == c[i] ? 1 : 0;
    }
    assertThat(same).as("offsets shared by two seeds").isLessThan(10);
  }

  @Test
  void poissonIsPinnedToSplittableRandomOfTheSeed() {
    // Pins the algorithm (inverse-CDF exponential gaps from SplittableRandom(seed).nextDouble()):
    // changing it changes every seeded run users have recorded, so do it only on purpose.
    long[] poisson = offsets(schedule(10, new Arrivals.Poisson(), 7), 3);
    java.util.SplittableRandom r = new java.util.SplittableRandom(7);
    double g0 = -Math.log(1 - r.nextDouble()) * 1e8;
    double g1 = -Math.log(1 - r.nextDouble()) * 1e8;
    assertThat(poisson[0]).isEqualTo(Math.round(g0));
    assertThat(poisson[1]).isBetween(Math.round(g0 + g1) - 1, Math.round(g0 + g1) + 1);
  }

  @ParameterizedTest
  @MethodSource("allKinds")
  void offsetsAreNonDecreasingAndNonNegative(Arrivals arrivals) {
    long[] got = offsets(schedule(1_000, arrivals, 99), 100_000);
    assertThat(got[0]).isNotNegative();
    for (int i = 1; i < got.length; i++) {
      if (got[i] < got[i - 1]) {
        throw new AssertionError("offset " + i + " went back: " + got[i - 1] + " -> " + got[i]);
      }
    }
  }

  @Test
  void poissonGapsHaveMeanOneOverRateAndUnitCoefficientOfVariation() {
    double[] stats = gapStats(schedule(10, new Arrivals.Poisson(), 2024), 100_000);
    // Standard error of the mean gap is 1/sqrt(n) = 0.32% of it: 2% is over 6 sigma.
    assertThat(stats[0]).isCloseTo(0.1 * SECOND, within(0.02 * 0.1 * SECOND));
    assertThat(stats[1]).isCloseTo(1.0, within(0.02));
  }

  @ParameterizedTest(name = "gamma k={0}")
  @ValueSource(doubles = {0.25, 1, 4, 30})
  void gammaGapsHaveMeanOneOverRateAndCvOneOverSqrtK(double k) {
    double[] stats = gapStats(schedule(10, new Arrivals.Gamma(k), 77), 100_000);
    double cv = 1 / Math.sqrt(k);
    // k = 0.25: CV 2, standard error of the mean 2/sqrt(1e5) = 0.63%; of the CV about 0.8%
    // (excess kurtosis 6/k = 24). Tolerances are about 4-5 sigma.
    assertThat(stats[0]).isCloseTo(0.1 * SECOND, within(0.03 * 0.1 * SECOND));
    assertThat(stats[1]).isCloseTo(cv, within(0.04 * cv));
  }

  @Test
  void gammaShapeOneMatchesPoissonInDistributionNotInDraws() {
    double[] gamma = gapStats(schedule(5, new Arrivals.Gamma(1), 3), 50_000);
    double[] poisson = gapStats(schedule(5, new Arrivals.Poisson(), 3), 50_000);
    assertThat(gamma[1]).isCloseTo(poisson[1], within(0.05));
    assertThat(gamma[0]).isCloseTo(poisson[0], within(0.03 * poisson[0]));
  }

  @Test
  void renewalSumDoesNotDriftOverMillionsOfEqualGaps() {
    // 1e9/3 ns is not a double; a plain running sum rounds the same way every step.
    ArrivalSchedules.RenewalSchedule s = new ArrivalSchedules.RenewalSchedule(() -> 1e9 / 3);
    long last = 0;
    for (int i = 0; i < 3_000_000; i++) {
      last = s.nextOffsetNanos();
    }
    assertThat(last).isBetween(1_000_000 * SECOND - 1, 1_000_000 * SECOND + 1);
  }

  // ---- contract over every kind ----

  static Stream<Arguments> allKinds() {
    return Stream.concat(Stream.of(new Arrivals.Constant()), randomKinds()).map(Arguments::of);
  }

  @ParameterizedTest
  @MethodSource("allKinds")
  void meanRateOverALongScheduleMatchesTheModel(Arrivals arrivals) {
    for (double rate : new double[] {0.5, 8, 250}) {
      int n = 40_000;
      long[] got = offsets(schedule(rate, arrivals, 11), n);
      double achievedRate = (n - 1) / ((got[n - 1] - got[0]) / (double) SECOND);
      // Worst case gamma k=0.05: CV 4.5, so the mean of 40k gaps has 2.2% standard error.
      assertThat(achievedRate)
          .as("%s at %s/s", arrivals.label(), rate)
          .isCloseTo(rate, within(0.1 * rate));
    }
  }

  /** Mean gap (ns) and coefficient of variation of the gaps between consecutive arrivals. */
  private static double[] gapStats(ArrivalSchedule schedule, int gaps) {
    long previous = 0; // renewal processes start at 0: arrival 0's gap is counted from 0
    double sum = 0;
    double sumSq = 0;
    for (int i = 0; i < gaps; i++) {
      long offset = schedule.nextOffsetNanos();
      double gap = offset - previous;
      previous = offset;
      sum += gap;
      sumSq += gap * gap;
    }
    double mean = sum / gaps;
    double sd = Math.sqrt(sumSq / gaps - mean * mean);
    return new double[] {mean, sd / mean};
  }

  @org.junit.jupiter.api.Test
  void aTraceScheduleReplaysItsOffsetsThenNeverArrivesAgain() {
    ArrivalSchedule s = ArrivalSchedule.of(new LoadModel.Open(1, new Arrivals.Trace(new long[] {0, 5, 5, 9}),
        java.util.OptionalInt.empty()), 42);
    org.assertj.core.api.Assertions.assertThat(new long[] {s.nextOffsetNanos(), s.nextOffsetNanos(), s.nextOffsetNanos(),
        s.nextOffsetNanos(), s.nextOffsetNanos(), s.nextOffsetNanos()})
        .containsExactly(0, 5, 5, 9, Long.MAX_VALUE, Long.MAX_VALUE);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Arrivals.Trace(new long[] {5, 4}))
        .hasMessageContaining("back in time");
    org.assertj.core.api.Assertions.assertThat(new Arrivals.Trace(new long[] {0, 1_000_000_000L, 2_000_000_000L})
        .meanRatePerSecond()).isEqualTo(1.0);
  }
}
