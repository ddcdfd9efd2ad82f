package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class VariationTest {
  private static final EngineConfig IDEAL =
      EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm")).withEfficiency(1, 1, 0, 0);

  @Test
  void noneLeavesEveryTimeExact() {
    Variation.Draws factors = Variation.NONE.iterationFactors();
    Variation.Draws delays = Variation.NONE.arrivalDelays();
    for (int i = 0; i < 100; i++) {
      assertThat(factors.scale(4_504_771L)).isEqualTo(4_504_771L);
      assertThat(delays.delayNanos()).isZero();
    }
    assertThat(Variation.NONE.none()).isTrue();
    assertThat(Variation.estimated(1).none()).isFalse();
  }

  @Test
  void iterationFactorsHaveMeanOneAndTheGivenSpread() {
    Variation.Draws d = new Variation(0.05, 0, 7).iterationFactors();
    int n = 200_000;
    double sum = 0;
    double squares = 0;
    for (int i = 0; i < n; i++) {
      double f = d.scale(1_000_000_000L) / 1e9;
      sum += f;
      squares += f * f;
    }
    double mean = sum / n;
    double sd = Math.sqrt(squares / n - mean * mean);
    // standard error of the mean 0.05 / sqrt(200,000) = 1.1e-4
    assertThat(mean).isCloseTo(1.0, within(5e-4));
    assertThat(sd / mean).isCloseTo(0.05, within(1e-3));
  }

  @Test
  void arrivalDelaysAreUniformWithinTheJitter() {
    Variation.Draws d = new Variation(0, 2_000_000L, 3).arrivalDelays();
    long min = Long.MAX_VALUE;
    long max = 0;
    double sum = 0;
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      long delay = d.delayNanos();
      min = Math.min(min, delay);
      max = Math.max(max, delay);
      sum += delay;
    }
    assertThat(min).isBetween(0L, 1_000L);
    assertThat(max).isBetween(1_999_000L, 2_000_000L);
    // uniform on [0, 2 ms]: mean 1 ms, standard error 0.577 ms / sqrt(100,000) = 1.8 µs
    assertThat(sum / n).isCloseTo(1_000_000, within(10_000.0));
  }

  @Test
  void theSameSeedDrawsTheSameAndAnotherDiffers() {
    Variation.Draws a = new Variation(0.1, 1_000_000L, 11).iterationFactors();
    Variation.Draws b = new Variation(0.1, 1_000_000L, 11).iterationFactors();
    Variation.Draws c = new Variation(0.1, 1_000_000L, 12).iterationFactors();
    List<Long> as = new ArrayList<>();
    List<Long> bs = new ArrayList<>();
    List<Long> cs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      as.add(a.scale(1_000_000L));
      bs.add(b.scale(1_000_000L));
      cs.add(c.scale(1_000_000L));
    }
    assertThat(bs).isEqualTo(as);
    assertThat(cs).isNotEqualTo(as);
  }

  @Test
  void outOfRangeValuesAreRefused() {
    assertThatThrownBy(() -> new Variation(1.0, 0, 0))
        .hasMessage("iteration time coefficient of variation must be in [0, 1), got 1.0");
    assertThatThrownBy(() -> new Variation(-0.1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Variation(Double.NaN, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Variation(0, -1, 0)).hasMessage("arrival jitter must be >= 0, got -1 ns");
  }

  @Test
  void anEngineWithVariationScattersItsIterationsAroundTheExactOnes() {
    // The exact engine's decode steps of one sequence, then the same run with CV 0.05.
    List<Long> exact = durations(Variation.NONE);
    List<Long> varied = durations(new Variation(0.05, 0, 5));
    assertThat(varied).hasSameSizeAs(exact);
    // batch 1 with 100 tokens of context: 4,484,504 ns + 306 ns sampling + 20 µs graph (BatchEngineTest)
    assertThat(exact.get(1)).isEqualTo(4_484_504L + 306 + 20_000);
    double ratioSum = 0;
    double squares = 0;
    for (int i = 0; i < exact.size(); i++) {
      double r = (double) varied.get(i) / exact.get(i);
      ratioSum += r;
      squares += r * r;
    }
    double mean = ratioSum / exact.size();
    double cv = Math.sqrt(squares / exact.size() - mean * mean) / mean;
    // 2,000 iterations: standard error of the mean factor 0.05 / sqrt(2,000) = 0.0011
    assertThat(mean).isCloseTo(1.0, within(0.005));
    assertThat(cv).isCloseTo(0.05, within(0.005));
  }

  private static List<Long> durations(Variation v) {
    BatchEngine e = new BatchEngine(IDEAL, (id, index, at) -> {}, v);
    e.submit(1, 100, 2_000, 0);
    List<Long> out = new ArrayList<>();
    while (e.hasWork()) {
      out.add(e.step().durationNanos());
    }
    return out;
  }
}
