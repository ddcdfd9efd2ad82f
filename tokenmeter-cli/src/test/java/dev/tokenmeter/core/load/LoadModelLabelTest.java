package dev.tokenmeter.core.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Stage labels as tables and reports print them: a computed rate is rounded, a given one kept. */
class LoadModelLabelTest {
  private static String rate(double r) {
    return new LoadModel.Open(r, new Arrivals.Poisson(), OptionalInt.empty()).label();
  }

  @Test
  void aComputedRateHasFourSignificantFiguresAtMost() {
    // A workload profile's rate printed "rate=6.088729145432112/s poisson" (issue 43).
    assertThat(rate(6.088729145432112)).isEqualTo("rate=6.089/s poisson");
    assertThat(rate(0.123456)).isEqualTo("rate=0.1235/s poisson");
    assertThat(rate(12.5)).isEqualTo("rate=12.5/s poisson");
    assertThat(rate(0.5)).isEqualTo("rate=0.5/s poisson");
    assertThat(rate(40)).isEqualTo("rate=40/s poisson");
    assertThat(rate(1234.56)).isEqualTo("rate=1235/s poisson");
    assertThat(new LoadModel.Closed(8, 0).label()).isEqualTo("c=8");
  }
}
