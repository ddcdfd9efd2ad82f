package dev.tokenmeter.core.slo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.analysis.ConstructedStages;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.Sessions;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.analysis.TurnRange;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** SLO objectives over a range of conversation turns: parsing, and the histograms they read. */
class TurnSloTest {
  private static final long MS = 1_000_000L;

  @Test
  void aClauseMayNameATurnRange() {
    Slo slo = Slo.parse("ttft.p99[turn>=4]<=1s, tpot.p50[turn=2..3]<50ms, ttft.p90[ turn < 3 ]<=200ms, ttft.p99<=2s");
    List<Slo.Objective> o = slo.objectives();
    assertThat(o.get(0).turns()).isEqualTo(new TurnRange(4, Integer.MAX_VALUE));
    assertThat(o.get(0).threshold()).isEqualTo(1000);
    assertThat(o.get(0).name()).isEqualTo("ttft.p99[turn>=4]");
    assertThat(o.get(1).turns()).isEqualTo(new TurnRange(2, 3));
    assertThat(o.get(1).name()).isEqualTo("tpot.p50[turn=2..3]");
    assertThat(o.get(2).turns()).isEqualTo(new TurnRange(1, 2));
    assertThat(o.get(3).turns()).isNull();
    assertThat(TurnRange.parse("turn>8")).isEqualTo(new TurnRange(9, Integer.MAX_VALUE));
    assertThat(TurnRange.parse("turn==5")).isEqualTo(new TurnRange(5, 5));
  }

  @Test
  void badTurnRangesSayWhatIsWrongInOneLine() {
    assertThatThrownBy(() -> Slo.parse("ttft.p99[turn>=4<=1s"))
        .hasMessage("--slo clause 'ttft.p99[turn>=4<=1s': '[' without ']'; write e.g. ttft.p99[turn>=4]<=1s");
    assertThatThrownBy(() -> Slo.parse("errors[turn>=2]<=1%"))
        .hasMessageContaining("errors is not recorded by turn; turn ranges apply to ttft, ttft_sent, ttft_scheduled and tpot");
    assertThatThrownBy(() -> Slo.parse("ttft.p99[turn>=12]<=1s"))
        .hasMessageContaining("turns past 8 are recorded together: start the range at turn 9 at the latest");
    assertThatThrownBy(() -> Slo.parse("ttft.p99[turn=2..12]<=1s"))
        .hasMessageContaining("end the range at turn 8 at the latest, or leave it open");
    assertThatThrownBy(() -> Slo.parse("ttft.p99[round>=2]<=1s"))
        .hasMessageContaining("'round>=2' is not a turn range; write turn=2, turn>=4");
    assertThatThrownBy(() -> Slo.parse("ttft.p99[turn>=x]<=1s")).hasMessageContaining("needs whole turn numbers");
  }

  @Test
  void aTurnRangeReadsTheBucketsItCovers() {
    // Turn k's TTFT is k * 100 ms; the "later" bucket (turn 9+) 2 s.
    java.util.ArrayList<Sessions.ByTurn> byTurn = new java.util.ArrayList<>();
    for (int k = 1; k <= Sessions.TURN_CAP + 1; k++) {
      Histogram ttft = new Histogram(3);
      ttft.recordValue(k > Sessions.TURN_CAP ? 2000 * MS : k * 100 * MS);
      byTurn.add(new Sessions.ByTurn(k, ttft, ttft, ttft, new Histogram(3), 0, 0));
    }
    Histogram none = new Histogram(3);
    Sessions s = new Sessions(9, 9, 0, 0, 0, none, none, none, none, byTurn);
    assertThat(s.over(Metric.TTFT, new TurnRange(4, Integer.MAX_VALUE)).getTotalCount()).isEqualTo(6);
    assertThat(s.over(Metric.TTFT, new TurnRange(1, 3)).getMaxValue()).isBetween(299 * MS, 301 * MS);
    assertThat(s.over(Metric.TTFT, new TurnRange(9, Integer.MAX_VALUE)).getMinValue()).isGreaterThan(1999 * MS);

    Slo slo = Slo.parse("ttft_sent.max[turn<=3]<=350ms,ttft_sent.max[turn>=4]<=1s");
    StageResult r = ConstructedStages.withSessions(s);
    SloReport.StageVerdict v = SloReport.evaluate(slo, r);
    assertThat(v.checks().get(0).passed()).isTrue();
    assertThat(v.checks().get(1).passed()).isFalse();
    assertThat(v.reasons()).startsWith("ttft_sent.max[turn>=4] (2");

    SloReport.StageVerdict noSessions = SloReport.evaluate(slo, ConstructedStages.withSessions(null));
    assertThat(noSessions.checks().get(0).note()).isEqualTo("no data: the stage ran no conversations (bench --turns)");
  }
}
