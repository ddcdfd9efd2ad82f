package dev.tokenmeter.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class QuantileBootstrapTest {

  @Test
  void nearestRankQuantiles() {
    double[] v = new double[100];
    for (int i = 0; i < 100; i++) {
      v[i] = i + 1;
    }
    assertThat(QuantileBootstrap.quantile(v, 0.5)).isEqualTo(50);
    assertThat(QuantileBootstrap.quantile(v, 0.99)).isEqualTo(99);
    assertThat(QuantileBootstrap.quantile(v, 0.1)).isEqualTo(10);
    assertThat(QuantileBootstrap.quantile(new double[] {7}, 0.99)).isEqualTo(7);
  }

  @Test
  void aKnownShiftIsFoundAndCovered() {
    double[] a = sample(2_000, 1);
    double[] b = a.clone();
    for (int i = 0; i < b.length; i++) {
      b[i] += 25; // every value 25 ms slower
    }
    for (double q : new double[] {0.5, 0.99}) {
      QuantileBootstrap.Interval i = QuantileBootstrap.difference(a, b, q, 0.95, 1_000, 7);
      assertThat(i.estimate()).isCloseTo(25.0, org.assertj.core.api.Assertions.within(1e-9));
      assertThat(i.low()).isLessThanOrEqualTo(25.0).isGreaterThan(0);
      assertThat(i.high()).isGreaterThanOrEqualTo(25.0);
      assertThat(i.pValue()).isEqualTo(2.0 / 1_001); // no resample crossed zero
    }
  }

  @Test
  void noDifferenceCoversZeroAndIsDeterministic() {
    double[] a = sample(3_000, 2);
    double[] b = sample(3_000, 3); // the same distribution, other draws
    QuantileBootstrap.Interval i = QuantileBootstrap.difference(a, b, 0.5, 0.95, 1_000, 11);
    assertThat(i.low()).isLessThan(0);
    assertThat(i.high()).isGreaterThan(0);
    assertThat(i.pValue()).isGreaterThan(0.05);
    assertThat(QuantileBootstrap.difference(a, b, 0.5, 0.95, 1_000, 11)).isEqualTo(i);
  }

  @Test
  void tailNeedsEnoughValues() {
    assertThat(QuantileBootstrap.enoughFor(499, 0.99)).isFalse();
    assertThat(QuantileBootstrap.enoughFor(500, 0.99)).isTrue();
    assertThat(QuantileBootstrap.enoughFor(50, 0.10)).isTrue();
    assertThat(QuantileBootstrap.enoughFor(10, 0.5)).isTrue();
    assertThatThrownBy(() -> QuantileBootstrap.difference(new double[0], new double[] {1}, 0.5, 0.95, 10, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** Log-normal-ish latencies around 100 ms. */
  private static double[] sample(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = 100 * Math.exp(0.3 * gaussian(r));
    }
    return v;
  }

  private static double gaussian(SplittableRandom r) {
    return Math.sqrt(-2 * Math.log(1 - r.nextDouble())) * Math.cos(2 * Math.PI * r.nextDouble());
  }
}
