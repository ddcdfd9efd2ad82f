package dev.tokenmeter.core.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Binning by concurrency in flight and the knee of per-user TPS p10, on hand-computed data: ten
 * requests per bin with decode TPS {@code base, base+1, ..., base+9}, whose p10 (HdrHistogram's
 * value at the 10th percentile: the first of ten) is {@code base}.
 */
class InFlightCurveTest {
  private static final long T0 = 1_764_000_000_000L;

  static ProductionRequest ok(int concurrency, double tps) {
    return new ProductionRequest(T0, concurrency, "acme", "llama", null, 100, 1000 / tps, 1000, tps, 10, 20, 0.5, "USD");
  }

  static ProductionRequest failed(int concurrency, String errorClass) {
    return new ProductionRequest(T0, concurrency, "acme", "llama", errorClass, Double.NaN, Double.NaN, Double.NaN,
        Double.NaN, -1, -1, Double.NaN, null);
  }

  /** Ten completed requests at {@code concurrency}, TPS base..base+9. */
  static List<ProductionRequest> ten(int concurrency, double base) {
    List<ProductionRequest> out = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      out.add(ok(concurrency, base + i));
    }
    return out;
  }

  @Test
  void binsByConcurrencyInOrderWithErrorsApartFromTheDistributions() {
    List<ProductionRequest> rs = new ArrayList<>(ten(4, 40));
    rs.addAll(ten(1, 60));
    rs.add(failed(4, "http_5xx"));
    InFlightCurve c = InFlightCurve.of(rs, 30);
    assertThat(c.bins()).extracting(InFlightCurve.Bin::label).containsExactly("c=1", "c=4");
    InFlightCurve.Bin four = c.bins().get(1);
    assertThat(four.requests()).isEqualTo(11);
    assertThat(four.errors()).isEqualTo(1);
    assertThat(four.decodeTps().count()).isEqualTo(10);
    // p50 of 40..49: the 5th value, 44; p10 the first, 40 (3 significant digits: within 0.1%)
    assertThat(four.decodeTps().p50()).isCloseTo(44, within(0.05));
    assertThat(four.decodeTps().p10()).isCloseTo(40, within(0.05));
    // TTFT 100 ms each; TPOT 1000/tps ms: the p50 of TPOT is 1000/45 (the 5th slowest of 10) = 22.2 ms
    assertThat(four.ttftMs().p50()).isCloseTo(100, within(0.1));
    assertThat(four.tpotMs().p50()).isCloseTo(1000 / 45.0, within(0.03));
  }

  @Test
  void kneeBetweenTheLastBinMeetingTheBarAndTheFirstBelow() {
    List<ProductionRequest> rs = new ArrayList<>(ten(1, 60));
    rs.addAll(ten(2, 45));
    rs.addAll(ten(4, 31)); // p10 31: meets 30
    rs.addAll(ten(8, 22)); // p10 22: below
    rs.addAll(ten(16, 35)); // back above: the first crossing counts
    InFlightCurve c = InFlightCurve.of(rs, 30);
    assertThat(c.knee()).isEqualTo(new InFlightCurve.Knee(InFlightCurve.Status.CROSSED, 4, 8));
    // With the bar at 32, c=4's p10 of 31 is below it already
    assertThat(InFlightCurve.of(rs, 32).knee()).isEqualTo(new InFlightCurve.Knee(InFlightCurve.Status.CROSSED, 2, 4));
  }

  @Test
  void binsWithFewerThanTenTpsValuesSitOutTheKneeSearch() {
    List<ProductionRequest> rs = new ArrayList<>(ten(1, 60));
    rs.addAll(ten(2, 50).subList(0, 9)); // 9 values: p10 50, but too few
    rs.add(failed(2, "timeout"));
    rs.add(ok(3, 5)); // one slow request: below the bar but alone
    rs.addAll(ten(6, 20));
    InFlightCurve c = InFlightCurve.of(rs, 30);
    assertThat(c.bins()).extracting(InFlightCurve.Bin::enoughForKnee).containsExactly(true, false, false, true);
    assertThat(c.knee()).isEqualTo(new InFlightCurve.Knee(InFlightCurve.Status.CROSSED, 1, 6));
  }

  @Test
  void noneBelowAllBelowAndTooFew() {
    List<ProductionRequest> fast = new ArrayList<>(ten(1, 60));
    fast.addAll(ten(3, 30)); // exactly at the bar meets it
    assertThat(InFlightCurve.of(fast, 30).knee())
        .isEqualTo(new InFlightCurve.Knee(InFlightCurve.Status.NONE_BELOW, 3, -1));
    assertThat(InFlightCurve.of(ten(2, 10), 30).knee())
        .isEqualTo(new InFlightCurve.Knee(InFlightCurve.Status.ALL_BELOW, -1, 2));
    assertThat(InFlightCurve.of(List.of(ok(1, 5), failed(1, "connect")), 30).knee())
        .isEqualTo(new InFlightCurve.Knee(InFlightCurve.Status.TOO_FEW, -1, -1));
    assertThat(InFlightCurve.of(List.of(), 30).bins()).isEmpty();
  }

  @Test
  void aThresholdMustBePositive() {
    assertThatThrownBy(() -> InFlightCurve.of(List.of(), 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("above 0 tokens/s");
    assertThatThrownBy(() -> failed(-1, "x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("counts the request itself");
    assertThat(InFlightCurve.of(List.of(failed(0, "http_4xx")), 30).bins()).as("refused by the proxy: no bin").isEmpty();
  }
}
