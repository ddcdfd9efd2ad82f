package dev.tokenmeter.proxy.balance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class TpsCurveTest {

  @Test
  void coldUntilAPointIsKnown() {
    TpsCurve c = new TpsCurve();
    assertThat(c.cold()).isTrue();
    assertThat(c.predict(1)).isNaN();
    c.observe(1, Double.NaN); // no TPOT: nothing learned
    c.observe(0, 50);
    assertThat(c.cold()).isTrue();
    c.observe(2, 80);
    assertThat(c.cold()).isFalse();
    assertThat(c.observations()).isEqualTo(1);
  }

  @Test
  void flatBelowTheFirstPointLinearBetweenAndASquareRootTailAbove() {
    TpsCurve c = new TpsCurve();
    c.observe(2, 100);
    c.observe(6, 60);
    assertThat(c.predict(1)).isEqualTo(100);
    assertThat(c.predict(2)).isEqualTo(100);
    assertThat(c.predict(4)).isCloseTo(80, within(1e-9));
    assertThat(c.predict(6)).isEqualTo(60);
    assertThat(c.predict(24)).isCloseTo(60 * Math.sqrt(6.0 / 24), within(1e-9));
    assertThat(c.predict(100_000)).isEqualTo(c.predict(TpsCurve.MAX_CONCURRENCY));
  }

  @Test
  void aRiseWithConcurrencyIsPooledIntoAFlatStretch() {
    TpsCurve c = new TpsCurve();
    c.observe(1, 100);
    c.observe(2, 50);
    c.observe(3, 70); // noise: per-user TPS cannot rise with load
    c.observe(4, 40);
    assertThat(c.predict(2)).isEqualTo(60);
    assertThat(c.predict(3)).isEqualTo(60);
    for (int k = 1; k < 40; k++) {
      assertThat(c.predict(k + 1)).isLessThanOrEqualTo(c.predict(k));
    }
  }

  @Test
  void weightedPoolingCountsObservations() {
    double[] mean = new double[8];
    int[] weight = new int[8];
    mean[1] = 30;
    weight[1] = 3;
    mean[2] = 90;
    weight[2] = 1;
    double[] p = TpsCurve.smooth(mean, weight);
    assertThat(p[1]).isEqualTo(45); // (3*30 + 1*90) / 4
    assertThat(p[2]).isEqualTo(45);
    assertThat(TpsCurve.smooth(new double[8], new int[8])).isNull();
  }

  @Test
  void oldTrafficDecaysExponentially() {
    TpsCurve c = new TpsCurve();
    for (int i = 0; i < 200; i++) {
      c.observe(4, 100);
    }
    for (int i = 0; i < 20; i++) {
      c.observe(4, 20);
    }
    // After WINDOW observations at weight 1/WINDOW the old mean keeps (1 - 1/20)^20 ≈ 36% of its say.
    double expected = 20 + 80 * Math.pow(1 - 1.0 / TpsCurve.WINDOW, 20);
    assertThat(c.predict(4)).isCloseTo(expected, within(1e-6));
    assertThat(c.predict(4)).isLessThan(50);
  }

  @Test
  void aSeedIsOutweighedByLiveTraffic() {
    TpsCurve c = new TpsCurve();
    c.seed(1, 200);
    c.seed(8, 120);
    assertThat(c.cold()).isFalse();
    assertThat(c.observations()).isZero();
    assertThat(c.predict(8)).isEqualTo(120);
    for (int i = 0; i < 10; i++) {
      c.observe(8, 60);
    }
    assertThat(c.predict(8)).isCloseTo(60 + 60.0 * TpsCurve.SEED_WEIGHT / (TpsCurve.SEED_WEIGHT + 10), within(1e-9));
    assertThatThrownBy(() -> c.seed(0, 10)).isInstanceOf(IllegalArgumentException.class);
  }
}
