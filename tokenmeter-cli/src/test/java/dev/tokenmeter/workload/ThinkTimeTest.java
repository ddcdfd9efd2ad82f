package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The observed think time: draws between neighbouring quantiles, its mean, bad quantiles refused. */
class ThinkTimeTest {

  @Test
  void anEmpiricalThinkTimeDrawsBetweenItsQuantilesWithTheTrapezoidMean() {
    ThinkTime t = new ThinkTime.Empirical(List.of(0, 1_000, 3_000)); // p0, p50, p100 in ms
    // mean: half the mass uniform on 0..1 s (0.5 s), half on 1..3 s (2 s): 1.25 s
    assertThat(t.meanNanos()).isEqualTo(1.25e9);
    SplittableRandom r = new SplittableRandom(7);
    double sum = 0;
    int below = 0;
    int n = 200_000;
    for (int i = 0; i < n; i++) {
      long d = t.sampleNanos(r);
      assertThat(d).isBetween(0L, 3_000_000_000L);
      below += d < 1_000_000_000L ? 1 : 0;
      sum += d;
    }
    assertThat(below / (double) n).isCloseTo(0.5, within(0.01));
    assertThat(sum / n).isCloseTo(1.25e9, within(0.01e9));
    assertThat(t.describe()).isEqualTo("observed, mean 1.25s");
  }

  @Test
  void quantilesMustBeAscendingAndNotNegative() {
    assertThatThrownBy(() -> new ThinkTime.Empirical(List.of(5)))
        .hasMessageContaining("at least 2 quantiles");
    assertThatThrownBy(() -> new ThinkTime.Empirical(List.of(5, 3)))
        .hasMessageContaining("ascending");
    assertThatThrownBy(() -> new ThinkTime.Empirical(List.of(-1, 3)))
        .hasMessageContaining("at least 0");
  }
}
