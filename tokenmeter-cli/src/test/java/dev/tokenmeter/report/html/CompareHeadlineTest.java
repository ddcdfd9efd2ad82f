package dev.tokenmeter.report.html;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.ComparedQuantity;
import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.core.analysis.StageComparison.Method;
import dev.tokenmeter.core.analysis.StageComparison.Row;
import dev.tokenmeter.core.analysis.StageComparison.Test;
import dev.tokenmeter.core.analysis.StageComparison.Verdict;
import dev.tokenmeter.core.analysis.StageSample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The verdict sentence of compare.html from stages with hand-set rows and verdicts. */
class CompareHeadlineTest {
  private static final StageComparison.Settings S = StageComparison.Settings.DEFAULT;

  /** A row of {@code q}: A's value, B's, the adjusted p-value and the verdict. */
  private static Row row(ComparedQuantity q, double a, double b, double p, Verdict v) {
    Method m = v == Verdict.NOT_TESTED ? Method.NONE : Method.MANN_WHITNEY;
    return new Row(q, a, b, new Test(m, p, p, b - a, Double.NaN, Double.NaN, Double.NaN, null), b > a, v);
  }

  /** A stage at {@code label} whose rows are {@code rows}, every other quantity untested. */
  private static StageComparison stage(String label, Row... rows) {
    List<Row> all = new ArrayList<>();
    for (ComparedQuantity q : ComparedQuantity.values()) {
      Row given = null;
      for (Row r : rows) {
        given = r.quantity() == q ? r : given;
      }
      all.add(given != null ? given : row(q, 1, 1, Double.NaN, Verdict.NOT_TESTED));
    }
    StageSample s = new StageSample(0, label, Map.of(), Map.of(), 1, 1, 10, 0);
    return new StageComparison(label, s, s, all);
  }

  private static String sentence(StageComparison... stages) {
    return CompareHeadline.sentence("B", new RunComparison(List.of(stages), List.of(), List.of()), S);
  }

  @org.junit.jupiter.api.Test
  void slowerNamesTheLargestChangesEachMetricFirst() {
    String s = sentence(
        stage("c=1", row(ComparedQuantity.TTFT_P50, 10, 11.2, 0.0004, Verdict.WORSE),
            row(ComparedQuantity.TPOT_P50, 6, 9.54, 0.0001, Verdict.WORSE)),
        stage("c=10", row(ComparedQuantity.TTFT_P50, 10, 13, 0.01234, Verdict.WORSE),
            row(ComparedQuantity.DECODE_TPS_P50, 100, 95, 0.03, Verdict.WORSE),
            row(ComparedQuantity.E2E_P50, 100, 100.5, 0.001, Verdict.NEGLIGIBLE)));
    // +59% TPOT, +30% TTFT at c=10, −5.0% decode TPS; TTFT's +12% at c=1 (a second TTFT) is counted.
    assertThat(s).isEqualTo("B is slower than A: TPOT p50 +59% (significant, p<0.001) at c=1;"
        + " TTFT p50 +30% (significant, p=0.012) at c=10; decode TPS/user p50 -5.0% (significant, p=0.030)"
        + " at c=10; and 1 more significant change.");
  }

  @org.junit.jupiter.api.Test
  void fasterMixedAndErrorsOnly() {
    assertThat(sentence(stage("c=8", row(ComparedQuantity.TTFT_P99, 200, 150, 0.002, Verdict.BETTER))))
        .isEqualTo("B is faster than A: TTFT p99 -25% (significant, p=0.0020) at c=8.");
    assertThat(sentence(stage("c=8", row(ComparedQuantity.TTFT_P50, 200, 150, 0.002, Verdict.BETTER),
        row(ComparedQuantity.TPOT_P50, 10, 12, 0.002, Verdict.WORSE),
        row(ComparedQuantity.ERROR_RATE, 0, 1, 0.01, Verdict.WORSE))))
        .startsWith("B is better than A on 1 number and worse on 2: TTFT p50 -25% (significant, p=0.0020) at c=8;"
            + " TPOT p50 +20% (significant, p=0.0020) at c=8; error rate from 0% to 1% (significant, p=0.010) at c=8.");
    // A's error rate 0: no percentage, both values.
    assertThat(sentence(stage("r=2", row(ComparedQuantity.ERROR_RATE, 0, 2.5, 0.004, Verdict.WORSE))))
        .isEqualTo("B has more errors than A: error rate from 0% to 2.5% (significant, p=0.0040) at r=2.");
  }

  @org.junit.jupiter.api.Test
  void noDifferenceNothingTestedAndNothingShared() {
    assertThat(sentence(stage("c=8", row(ComparedQuantity.TTFT_P50, 10, 10.1, 0.4, Verdict.NO_SIGNIFICANT_DIFFERENCE),
        row(ComparedQuantity.TPOT_P50, 10, 10.05, 0.001, Verdict.NEGLIGIBLE))))
        .isEqualTo("No significant difference between B and A at c=8 (α = 0.05, Holm-adjusted; changes under 1%"
            + " count as negligible).");
    assertThat(sentence(stage("c=1", row(ComparedQuantity.TTFT_P50, 1, 1, 1, Verdict.NO_SIGNIFICANT_DIFFERENCE)),
        stage("c=8", row(ComparedQuantity.TTFT_P50, 1, 1, 1, Verdict.NO_SIGNIFICANT_DIFFERENCE))))
        .startsWith("No significant difference between B and A at any of the 2 matched stages");
    assertThat(sentence(stage("c=8"))).startsWith("B and A were not tested against each other");
    assertThat(sentence()).isEqualTo("B shares no stage with A: nothing was compared.");
  }
}
