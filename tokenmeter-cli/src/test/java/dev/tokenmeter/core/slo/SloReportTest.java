package dev.tokenmeter.core.slo;

import static dev.tokenmeter.core.analysis.ConstructedStages.dist;
import static dev.tokenmeter.core.analysis.ConstructedStages.flat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.ConstructedStages;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.slo.SloReport.Check;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SLO evaluation on stages with hand-chosen numbers: values, verdicts, notes and no-data cases. */
class SloReportTest {
  private static final Slo SLO = Slo.parse("ttft.p99<=800ms,tpot.p99<=60ms,errors<=1%,tps.p10>=30,output_tps>=1000");

  private static StageResult good() {
    return ConstructedStages.closed(0, 8)
        .requests(990, 10) // 1.0% errors: on the limit, passes
        .metric(Metric.TTFT, dist(990, 100, 300, 800)) // p99 on the limit, passes
        .metric(Metric.TPOT, dist(990, 15, 20, 25))
        .metric(Metric.DECODE_TPS, dist(990, 40, 50, 66.7))
        .throughput(1200, 99)
        .build();
  }

  @Test
  void aStageOnEveryLimitPasses() {
    SloReport.StageVerdict v = SloReport.evaluate(SLO, good());
    assertThat(v.passed()).isTrue();
    assertThat(v.label()).isEqualTo("c=8");
    assertThat(v.checks().stream().map(Check::measured)).containsExactly(800.0, 25.0, 1.0, 40.0, 1200.0);
    assertThat(v.checks().stream().map(Check::note))
        .containsExactly("800 ms <= 800 ms", "25 ms <= 60 ms", "1% <= 1%", "40 tok/s >= 30 tok/s", "1200 tok/s >= 1000 tok/s");
  }

  @Test
  void failingObjectivesSayMeasuredVersusThreshold() {
    StageResult slow = ConstructedStages.closed(1, 64)
        .requests(980, 20) // 2%
        .metric(Metric.TTFT, dist(980, 300, 600, 912))
        .metric(Metric.TPOT, dist(980, 30, 40, 59.9))
        .metric(Metric.DECODE_TPS, dist(980, 25, 25, 33))
        .throughput(900, 98)
        .build();
    SloReport report = SloReport.evaluate(SLO, List.of(good(), slow));
    assertThat(report.passed()).isFalse();
    assertThat(report.failures()).isEqualTo(4);
    assertThat(report.stages().get(1).failed().stream().map(c -> c.objective().name() + ": " + c.note()))
        .containsExactly(
            "ttft.p99: 912 ms > 800 ms", "errors: 2% > 1%", "tps.p10: 25 tok/s < 30 tok/s",
            "output_tps: 900 tok/s < 1000 tok/s");
    assertThat(report.stages().get(0).passed()).isTrue();
  }

  @Test
  void noDataFailsAndSaysWhy() {
    StageResult allFailed = ConstructedStages.closed(0, 4).requests(0, 12).build();
    SloReport.StageVerdict v = SloReport.evaluate(Slo.parse("ttft.p99<=1s,errors<=50%,request_rate>=1"), allFailed);
    assertThat(v.checks().stream().map(Check::note))
        .containsExactly("no data: no measured request succeeded", "100% > 50%", "no data: the measurement window never opened");
    assertThat(v.checks().get(0).measured()).isNaN();

    StageResult oneToken = ConstructedStages.closed(0, 4).requests(5, 0)
        .metric(Metric.TTFT, flat(5, 100)).build(); // TPOT needs 2 tokens
    assertThat(SloReport.evaluate(Slo.parse("tpot.p99<=60ms"), oneToken).checks().get(0).note())
        .isEqualTo("no data: no successful request had a value (TPOT and TPS need 2 or more output tokens)");

    StageResult nothing = ConstructedStages.closed(0, 4).noWindow().build();
    assertThat(SloReport.evaluate(Slo.parse("errors<=1%"), nothing).checks().get(0))
        .extracting(Check::passed, Check::note).containsExactly(false, "no data: no measured request");
  }

  @Test
  void aRunWithNoStagesDoesNotPass() {
    assertThat(SloReport.evaluate(SLO, List.of()).passed()).isFalse();
  }
}
