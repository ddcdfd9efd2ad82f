package dev.tokenmeter.core.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.StageComparison.Row;
import dev.tokenmeter.core.analysis.StageComparison.Verdict;
import dev.tokenmeter.core.stats.QuantileBootstrap;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** Comparisons of constructed stages whose difference is known. */
class StageComparisonTest {
  private static final StageComparison.Settings S = StageComparison.Settings.DEFAULT;

  @Test
  void aKnownSlowdownIsSignificantAndSizedRight() {
    double[] ttft = latencies(800, 1, 100);
    StageSample a = sample("c=8", 0, ttft, 1.0, 0);
    StageSample b = sample("c=8", 0, scaled(ttft, 1.5), 1.0, 0); // every request 50% slower
    StageComparison c = StageComparison.of(a, b, S);

    Row p50 = row(c, ComparedQuantity.TTFT_P50);
    assertThat(p50.verdict()).isEqualTo(Verdict.WORSE);
    assertThat(p50.larger()).isTrue();
    assertThat(p50.test().method()).isEqualTo(StageComparison.Method.MANN_WHITNEY);
    assertThat(p50.test().pAdjusted()).isLessThan(1e-6);
    assertThat(p50.changePercent()).isCloseTo(50.0, within(0.2)); // histograms: 0.1% each
    assertThat(p50.test().estimate() / QuantileBootstrap.quantile(sorted(ttft), 0.5))
        .isCloseTo(0.5, within(1e-9));
    assertThat(p50.test().ciLow()).isPositive();
    Row p99 = row(c, ComparedQuantity.TTFT_P99);
    assertThat(p99.verdict()).isEqualTo(Verdict.WORSE);
    assertThat(p99.test().method()).isEqualTo(StageComparison.Method.BOOTSTRAP);
    // decode TPS is 1/TPOT here: 1.5× slower tokens, a lower speed, also "worse"
    Row tps = row(c, ComparedQuantity.DECODE_TPS_P50);
    assertThat(tps.verdict()).isEqualTo(Verdict.WORSE);
    assertThat(tps.larger()).isFalse();
    assertThat(tps.quantity().smallerWord()).isEqualTo("slower");
    assertThat(row(c, ComparedQuantity.ITL_P50).verdict()).isEqualTo(Verdict.NOT_TESTED);
    assertThat(row(c, ComparedQuantity.OUTPUT_TPS).test().note()).contains("one value per run");

    StageComparison back = StageComparison.of(b, a, S);
    assertThat(row(back, ComparedQuantity.TTFT_P50).verdict()).isEqualTo(Verdict.BETTER);
    assertThat(row(back, ComparedQuantity.DECODE_TPS_P10).verdict()).isEqualTo(Verdict.BETTER);
  }

  @Test
  void identicalStagesShowNoDifference() {
    double[] ttft = latencies(800, 2, 100);
    StageComparison c = StageComparison.of(sample("c=8", 0, ttft, 1, 3), sample("c=8", 0, ttft, 1, 3), S);
    for (Row r : c.rows()) {
      assertThat(r.verdict()).as(r.quantity().title())
          .isIn(Verdict.NO_SIGNIFICANT_DIFFERENCE, Verdict.NOT_TESTED);
      if (r.test().method() == StageComparison.Method.MANN_WHITNEY) {
        assertThat(r.test().pValue()).isEqualTo(1.0);
      }
    }
  }

  @Test
  void otherDrawsOfTheSameDistributionAreNotSignificant() {
    StageSample a = sample("c=8", 0, latencies(2_000, 3, 100), 1, 0);
    StageSample b = sample("c=8", 0, latencies(2_000, 4, 100), 1, 0);
    for (Row r : StageComparison.of(a, b, S).rows()) {
      assertThat(r.verdict()).as(r.quantity().title()).isNotIn(Verdict.BETTER, Verdict.WORSE);
    }
  }

  @Test
  void aSignificantButTinyChangeIsNegligible() {
    // A deterministic server (or the simulator): 100 ms ± 0.1%, then every request 0.5% slower.
    double[] ttft = new double[2_000];
    SplittableRandom random = new SplittableRandom(5);
    for (int i = 0; i < ttft.length; i++) {
      ttft[i] = 100 * (1 + 0.001 * random.nextDouble(-1, 1));
    }
    StageSample a = sample("c=8", 0, ttft, 1, 0);
    StageSample b = sample("c=8", 0, scaled(ttft, 1.005), 1, 0);
    Row r = row(StageComparison.of(a, b, S), ComparedQuantity.TTFT_P50);
    assertThat(r.test().pAdjusted()).isLessThan(0.05);
    assertThat(r.verdict()).isEqualTo(Verdict.NEGLIGIBLE);
    var strict = new StageComparison.Settings(0.05, 1_000, 1, 0.0);
    assertThat(row(StageComparison.of(a, b, strict), ComparedQuantity.TTFT_P50).verdict())
        .isEqualTo(Verdict.WORSE);
  }

  @Test
  void errorRatesUseFisher() {
    double[] ttft = latencies(1_000, 6, 100);
    Row r = row(StageComparison.of(sample("c=8", 0, ttft, 1, 0), sample("c=8", 0, ttft, 1, 30), S),
        ComparedQuantity.ERROR_RATE);
    assertThat(r.test().method()).isEqualTo(StageComparison.Method.FISHER_EXACT);
    assertThat(r.b()).isCloseTo(100.0 * 30 / 1030, within(1e-9));
    assertThat(r.verdict()).isEqualTo(Verdict.WORSE);
  }

  @Test
  void tailsNeedEnoughRequests() {
    double[] ttft = latencies(300, 7, 100);
    Row r = row(StageComparison.of(sample("c=8", 0, ttft, 1, 0), sample("c=8", 0, scaled(ttft, 2), 1, 0), S),
        ComparedQuantity.TTFT_P99);
    assertThat(r.verdict()).isEqualTo(Verdict.NOT_TESTED);
    assertThat(r.test().note()).isEqualTo("too few requests for a p99 test (needs 500 per run)");
  }

  @Test
  void stagesAreMatchedByLabel() {
    double[] v = latencies(50, 8, 100);
    List<StageSample> a = List.of(sample("c=1", 0, v, 1, 0), sample("c=8", 1, v, 1, 0), sample("c=32", 2, v, 1, 0));
    List<StageSample> b = List.of(sample("c=8", 0, v, 1, 0), sample("c=32", 1, v, 1, 0), sample("c=64", 2, v, 1, 0));
    RunComparison rc = RunComparison.of(a, b, S);
    assertThat(rc.stages()).extracting(StageComparison::label).containsExactly("c=8", "c=32");
    assertThat(rc.stages().get(0).a().index()).isEqualTo(1);
    assertThat(rc.onlyInA()).containsExactly("#0 c=1");
    assertThat(rc.onlyInB()).containsExactly("#2 c=64");
    assertThat(rc.samePlan()).isFalse();
    assertThat(RunComparison.of(a, a, S).samePlan()).isTrue();
  }

  private static Row row(StageComparison c, ComparedQuantity q) {
    return c.rows().get(q.ordinal());
  }

  /**
   * A stage whose TTFT, TPOT and E2E are {@code ttft} scaled (ms), decode TPS its inverse, with
   * throughput {@code 1000 / speed} and {@code failed} failures.
   */
  static StageSample sample(String label, int index, double[] ttft, double speed, long failed) {
    Map<Metric, double[]> values = new EnumMap<>(Metric.class);
    values.put(Metric.TTFT, ttft);
    values.put(Metric.TPOT, scaled(ttft, 0.1));
    values.put(Metric.E2E, scaled(ttft, 20));
    double[] tps = new double[ttft.length];
    for (int i = 0; i < tps.length; i++) {
      tps[i] = 1000 / (0.1 * ttft[i]);
    }
    values.put(Metric.DECODE_TPS, tps);
    values.put(Metric.ITL, scaled(ttft, 0.1));
    Map<Metric, Distribution> d = new EnumMap<>(Metric.class);
    values.forEach((m, v) -> {
      Histogram h = new Histogram(3);
      for (double x : v) {
        h.recordValue(Math.round(x * m.unit().perReportUnit()));
      }
      d.put(m, Distribution.of(h, m));
    });
    values.remove(Metric.ITL); // requests.jsonl has no per-request ITL
    return new StageSample(index, label, d, values, 1000 / speed, ttft.length / 30.0, ttft.length, failed);
  }

  /** Log-normal latencies with median {@code medianMs}. */
  static double[] latencies(int n, long seed, double medianMs) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      double g = Math.sqrt(-2 * Math.log(1 - r.nextDouble())) * Math.cos(2 * Math.PI * r.nextDouble());
      v[i] = medianMs * Math.exp(0.4 * g);
    }
    return v;
  }

  static double[] scaled(double[] v, double factor) {
    double[] s = v.clone();
    for (int i = 0; i < s.length; i++) {
      s[i] *= factor;
    }
    return s;
  }

  private static double[] sorted(double[] v) {
    double[] s = v.clone();
    java.util.Arrays.sort(s);
    return s;
  }
}
