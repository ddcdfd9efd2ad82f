package dev.tokenmeter.core.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.Repeats.Estimate;
import dev.tokenmeter.core.analysis.Repeats.Headline;
import dev.tokenmeter.core.metrics.SampleStages;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Mean, sample deviation, CV and the Student-t interval on numbers worked out by hand. */
class RepeatsTest {

  @ParameterizedTest(name = "{0} repeats at {1}: t = {2}")
  @CsvSource({
    "2, 0.95, 12.7062",
    "3, 0.95, 4.3027",
    "5, 0.95, 2.7764",
    "10, 0.95, 2.2622",
    "30, 0.95, 2.0452",
    "5, 0.90, 2.1318",
    "10, 0.99, 3.2498",
    "2, 0.99, 63.6567",
    "4, 0.999, 12.9240"
  })
  void intervalUsesStudentTFromPublishedTables(int n, double confidence, double t) {
    // Values 0, 1, ..., n − 1: s = sqrt(n (n + 1) / 12); half-width t(1 − α/2; n − 1) · s / sqrt(n).
    double[] values = new double[n];
    for (int i = 0; i < n; i++) {
      values[i] = i;
    }
    double s = Math.sqrt(n * (n + 1) / 12.0);
    assertThat(Estimate.of(values, confidence).halfWidth()).isCloseTo(t * s / Math.sqrt(n), within(0.00005 * s));
  }

  @Test
  void threeValuesAt95Percent() {
    // {10, 12, 14}: mean 12; squares 4 + 0 + 4 = 8, s = sqrt(8 / 2) = 2; CV 2/12;
    // half-width t(0.975, 2) * 2 / sqrt(3) = 4.302653 * 1.154701 = 4.968275.
    Estimate e = Estimate.of(new double[] {10, 12, 14}, 0.95);
    assertThat(e.n()).isEqualTo(3);
    assertThat(e.mean()).isEqualTo(12);
    assertThat(e.stdDev()).isCloseTo(2, within(1e-12));
    assertThat(e.cv()).isCloseTo(1.0 / 6, within(1e-12));
    assertThat(e.halfWidth()).isCloseTo(4.968275, within(1e-6));
    assertThat(e.low()).isCloseTo(7.031725, within(1e-6));
    assertThat(e.high()).isCloseTo(16.968275, within(1e-6));
  }

  @Test
  void twoValuesUseOneDegreeOfFreedom() {
    // {100, 104}: s = sqrt(8) = 2.828427; half-width 12.706205 * 2.828427 / sqrt(2) = 25.412409.
    Estimate e = Estimate.of(new double[] {100, 104}, 0.95);
    assertThat(e.halfWidth()).isCloseTo(25.412409, within(1e-5));
    assertThat(e.cv()).isCloseTo(Math.sqrt(8) / 102, within(1e-12));
  }

  @Test
  void ninetyPercentOverFive() {
    // 1..5: mean 3, s = sqrt(10 / 4); t(0.95, 4) = 2.131847: half-width 2.131847 * sqrt(0.5) = 1.507443.
    Estimate e = Estimate.of(new double[] {1, 2, 3, 4, 5}, 0.90);
    assertThat(e.stdDev()).isCloseTo(Math.sqrt(2.5), within(1e-12));
    assertThat(e.halfWidth()).isCloseTo(1.507443, within(1e-6));
  }

  @Test
  void undefinedValuesAreSkippedAndFewValuesGiveNaN() {
    Estimate e = Estimate.of(new double[] {Double.NaN, 10, 12, 14}, 0.95);
    assertThat(e.n()).isEqualTo(3);
    assertThat(e.halfWidth()).isCloseTo(4.968275, within(1e-6));

    Estimate one = Estimate.of(new double[] {7, Double.NaN}, 0.95);
    assertThat(one.n()).isEqualTo(1);
    assertThat(one.mean()).isEqualTo(7);
    assertThat(one.stdDev()).isNaN();
    assertThat(one.halfWidth()).isNaN();

    assertThat(Estimate.of(new double[] {}, 0.95).mean()).isNaN();
    // Identical values: no spread, CV 0; a zero mean has no CV.
    Estimate same = Estimate.of(new double[] {5, 5, 5}, 0.95);
    assertThat(same.stdDev()).isZero();
    assertThat(same.cv()).isZero();
    assertThat(same.halfWidth()).isZero();
    assertThat(Estimate.of(new double[] {0, 0}, 0.95).cv()).isNaN();
  }

  @Test
  void aGroupAggregatesEachStagesHeadlineNumbers() {
    List<StageResult> runs = List.of(SampleStages.closed(1), SampleStages.closed(2), SampleStages.closed(3));
    Repeats.Group g = Repeats.aggregate(4, runs, 0.95);
    assertThat(g.group()).isEqualTo(4);
    assertThat(g.label()).isEqualTo("c=4");
    assertThat(g.estimates()).containsOnlyKeys(Headline.values());
    for (Headline h : Headline.values()) {
      double[] v = runs.stream().mapToDouble(h::of).toArray();
      assertThat(g.estimate(h)).as(h.name()).isEqualTo(Estimate.of(v, 0.95));
    }
    double p50s = runs.stream().mapToDouble(r -> r.metric(Metric.TTFT).p50()).sum();
    assertThat(g.estimate(Headline.TTFT_P50).mean()).isCloseTo(p50s / 3, within(1e-9));
    StageResult r = runs.get(0);
    assertThat(Headline.ERROR_RATE.of(r))
        .isEqualTo((double) r.requests().failed() / (r.requests().completed() + r.requests().failed()));
    assertThat(Headline.ERROR_RATE.of(r)).isGreaterThan(0); // SampleStages has failures
    assertThat(Headline.OUTPUT_TPS.of(r)).isEqualTo(r.throughput().outputTokensPerSecond());
  }
}
