package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The power model's table and the meter that integrates it over iterations. */
class EnergyMeterTest {
  private static final long MS = 1_000_000L;
  private static final GpuPower H100 = GpuPower.of("h100-sxm").orElseThrow();

  /** An iteration of {@code gpuMs} GPU time, memory-bound (compute share 0), and {@code hostMs} host time. */
  private static Roofline.Cost memoryBound(long gpuMs, long hostMs) {
    return new Roofline.Cost(gpuMs * MS, 0, 0, 0, 0, hostMs * MS, 0, 0);
  }

  @Test
  void everyGpuIdIsInTheTableWithItsSourceAndUnknownOnesAreEmpty() {
    for (String id : new String[] {"a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200", "l40s", "l4", "mi300x",
        "b200", "b300", "gb200", "mi325x", "mi355x", "h20", "rtx-pro-6000"}) {
      GpuPower p = GpuPower.of(id).orElseThrow(() -> new AssertionError(id));
      assertThat(p.tdpSource()).isNotBlank();
      assertThat(p.idleWatts()).isLessThan(p.tdpWatts());
    }
    for (GpuSpec g : Presets.gpus()) {
      assertThat(GpuPower.of(g.id())).as("power data for preset %s", g.id()).isPresent();
    }
    assertThat(GpuPower.of("tpu-v5e")).isEmpty();
    assertThat(H100.tdpWatts()).isEqualTo(700);
  }

  @Test
  void powerFollowsComputeAndMemoryUtilisation() {
    assertThat(H100.watts(0, 0)).isEqualTo(70);
    assertThat(H100.watts(1, 0)).as("tensor cores saturated: TDP").isEqualTo(700);
    assertThat(H100.watts(0, 1)).as("memory streaming: 60% of the dynamic range").isCloseTo(448, within(1e-9));
    assertThat(H100.watts(0.05, 0.9)).isCloseTo(441.7, within(1e-9));
    assertThat(H100.watts(0.9, 0.9)).as("capped at TDP").isEqualTo(700);
  }

  @Test
  void energyIsIdleOverTheSpanPlusEachIterationsShareOnEveryGpu() {
    EnergyMeter m = new EnergyMeter(H100, 2, 3);
    m.startAt(0);
    m.iteration(0, 10 * MS, memoryBound(10, 0)); // 448 W for 10 ms
    m.iteration(30 * MS, 40 * MS, memoryBound(5, 5)); // half the time streaming: 70 + 630 × 0.3 = 259 W
    assertThat(m.joulesAt(40 * MS)).isCloseTo(2 * (448 * 0.010 + 70 * 0.020 + 259 * 0.010), within(1e-9));
    assertThat(m.joulesAt(100 * MS) - m.joulesAt(40 * MS)).as("idle after").isCloseTo(2 * 70 * 0.060, within(1e-9));
    assertThat(m.joulesAt(5 * MS)).as("half way into the first iteration").isCloseTo(2 * 448 * 0.005, within(1e-9));

    EnergyMeter.Span s = m.span(0, 40 * MS);
    assertThat(s.meanWatts()).isCloseTo(2 * (448 * 10 + 70 * 20 + 259 * 10) / 40.0, within(1e-9));
    assertThat(s.peakWatts()).as("the first 10 ms bucket").isCloseTo(2 * 448, within(1e-9));
    assertThat(s.busyShare()).as("15 ms of GPU time in 40").isCloseTo(15 / 40.0, within(1e-9));
    assertThat(s.memoryShare()).isCloseTo(15 / 40.0, within(1e-9));
    assertThat(s.computeShare()).isZero();
    assertThat(m.wattsAt(35 * MS)).isCloseTo(259, within(1e-9));
    assertThat(m.wattsAt(45 * MS)).isEqualTo(70);
  }

  @Test
  void aRetainingMeterAgreesWithAFullOneInsideItsWindowAndKeepsItsMemoryBounded() {
    EnergyMeter full = new EnergyMeter(H100, 4, 3);
    EnergyMeter kept = new EnergyMeter(H100, 4, 3);
    kept.retain(1_000 * MS); // 100 buckets
    full.startAt(0);
    kept.startAt(0);
    long t = 0;
    long lastEnd = 0;
    var random = new java.util.Random(7);
    while (t < 60_000 * MS) { // a minute of iterations of 3-40 ms, with idle gaps up to 2.5 s
      long d = (3 + random.nextInt(38)) * MS;
      Roofline.Cost c = memoryBound(d / MS - 1, 1);
      full.iteration(t, t + d, c);
      kept.iteration(t, t + d, c);
      lastEnd = t + d;
      t += d + (random.nextInt(50) == 0 ? 2_500 * MS : random.nextInt(4) * MS);
    }
    assertThat(kept.joulesAt(t)).as("the counter since the start stays exact")
        .isCloseTo(full.joulesAt(t), within(1e-6 * full.joulesAt(t)));
    EnergyMeter.Span a = full.span(t - 1_000 * MS, t);
    EnergyMeter.Span b = kept.span(t - 1_000 * MS, t);
    assertThat(b.joules()).isCloseTo(a.joules(), within(1e-9 * a.joules() + 1e-9));
    assertThat(b.busyShare()).isCloseTo(a.busyShare(), within(1e-9));
    assertThat(b.memoryShare()).isCloseTo(a.memoryShare(), within(1e-9));
    assertThat(b.peakWatts()).isEqualTo(a.peakWatts());
    assertThat(kept.earliestNanos()).as("at most twice the window held").isGreaterThanOrEqualTo(lastEnd - 2_010 * MS);
    long end = t;
    assertThatThrownBy(() -> kept.span(0, end)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("before the retained window");
    assertThatThrownBy(() -> kept.retain(10 * MS)).hasMessageContaining("at least 1 s");
  }

  @Test
  void aGapLongerThanTheRetainedWindowCountsAsIdle() {
    EnergyMeter m = new EnergyMeter(H100, 1, 3);
    m.retain(1_000 * MS);
    m.startAt(0);
    m.iteration(0, 10 * MS, memoryBound(10, 0)); // 448 W for 10 ms
    m.iteration(10_000 * MS, 10_010 * MS, memoryBound(10, 0)); // again, ten seconds later
    assertThat(m.joulesAt(10_010 * MS)).isCloseTo(448 * 0.020 + 70 * 9.990, within(1e-9));
    assertThat(m.span(9_500 * MS, 10_000 * MS).meanWatts()).as("idle before the second").isCloseTo(70, within(1e-9));
    assertThat(m.span(9_990 * MS, 10_010 * MS).peakWatts()).isCloseTo(448, within(1e-9));
  }

  @Test
  void anEngineOnAGpuWithPowerDataMetersItsIterations() {
    BatchEngine e = new BatchEngine(EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm")),
        (id, index, at) -> {});
    e.submit(1, 512, 64, 0);
    e.advanceTo(Long.MAX_VALUE);
    EnergyMeter m = e.energy();
    double joules = m.joulesAt(e.lastEndNanos());
    double seconds = e.lastEndNanos() / 1e9;
    assertThat(joules / seconds).as("one H100 decoding alone: between idle and TDP").isBetween(70.0 * 1.5, 700.0);
    assertThat(joules / 64).as("joules per token at batch 1").isBetween(1.0, 20.0);
  }
}
