package dev.tokenmeter.scrape;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Energy over a window: from the counter (with resets) or integrated power, and what follows from it. */
class GpuFiguresTest {
  private static final long S = 1_000_000_000L;
  private static final double NAN = Double.NaN;

  private static GpuReading reading(long atNanos, double watts, double joules) {
    return new GpuReading(atNanos, Map.of("0", new GpuReading.Gpu(watts, 50, 1000, NAN, NAN, NAN, joules)));
  }

  @Test
  void theCounterIsReadAtTheWindowEdgesByInterpolation() {
    // 400 W steady: the counter rises 400 J a second; readings at 0.5, 1.5, ... 10.5 s, window [2, 8].
    List<GpuReading> rs = new ArrayList<>();
    for (int i = 0; i <= 10; i++) {
      rs.add(reading(i * S + S / 2, 400, 1e6 + 400 * (i + 0.5)));
    }
    GpuStage g = GpuFigures.of(GpuKind.DCGM, rs, new ServerFigures.Span(0, 2 * S, 8 * S, 11 * S), 6000, 60, 0.12);
    assertThat(g.energySource()).isEqualTo("counter");
    assertThat(g.energyJoules()).isCloseTo(2400, within(1e-6));
    assertThat(g.joulesPerOutputToken()).isCloseTo(0.4, within(1e-9));
    assertThat(g.joulesPerRequest()).isCloseTo(40, within(1e-9));
    assertThat(g.outputTokensPerSecondPerKw()).as("1000 tokens/s at 0.4 kW").isCloseTo(2500, within(1e-6));
    assertThat(g.energyCostPerMillionOutputTokens()).as("0.4 MJ = 0.111 kWh at 0.12")
        .isCloseTo(0.4e6 / 3.6e6 * 0.12, within(1e-12));
    assertThat(g.powerMeanWatts()).isEqualTo(400);
    assertThat(g.windowReadings()).isEqualTo(6);
    assertThat(g.series().offsetSeconds()).hasSize(11);
  }

  @Test
  void aCounterResetCountsFromZero() {
    // 100 J/s; the exporter restarts between 4.5 and 5.5 s and counts from 0 again (reads 50 at 5.5 s:
    // the reset at 5.0 s). Increase over [1, 9]: 8 s × 100 = 800 J, less the half second lost.
    List<GpuReading> rs = new ArrayList<>();
    for (int i = 0; i <= 10; i++) {
      double t = i + 0.5;
      rs.add(reading(i * S + S / 2, 100, t < 5 ? 5000 + 100 * t : 100 * (t - 5)));
    }
    GpuStage g = GpuFigures.of(GpuKind.DCGM, rs, new ServerFigures.Span(0, S, 9 * S, 11 * S), 800, 8, NAN);
    assertThat(g.energyJoules()).as("a reset neither subtracts the old total nor loses more than its gap")
        .isCloseTo(750, within(1e-6));
    assertThat(g.energyCostPerMillionOutputTokens()).isNaN();
  }

  @Test
  void withoutACounterPowerIsIntegratedByTrapezoids() {
    // Power ramps from 100 W at 0 s to 500 W at 4 s (readings each second); window [1, 3]: mean 300 W.
    List<GpuReading> rs = new ArrayList<>();
    for (int i = 0; i <= 4; i++) {
      rs.add(reading(i * S, 100 + 100 * i, NAN));
    }
    GpuStage g = GpuFigures.of(GpuKind.NVIDIA_SMI, rs, new ServerFigures.Span(0, S, 3 * S, 4 * S), 600, 6, NAN);
    assertThat(g.energySource()).isEqualTo("integrated power");
    assertThat(g.energyJoules()).isCloseTo(600, within(1e-9));
    // Edges between readings: window [0.5, 1.5] runs from 150 W to 250 W, 1 s at a mean of 200 W.
    GpuStage half = GpuFigures.of(GpuKind.NVIDIA_SMI, rs, new ServerFigures.Span(0, S / 2, 3 * S / 2, 4 * S), 1, 1,
        NAN);
    assertThat(half.energyJoules()).isCloseTo(200, within(1e-9));
    // Beyond the last reading the last power is held.
    assertThat(GpuFigures.integrate(GpuFigures.series(rs, "0", GpuFigures.Field.POWER), 4 * S, 6 * S))
        .isCloseTo(1000, within(1e-9));
  }

  @Test
  void gpusAddUpAndAGpuWithoutEnergyMakesTheTotalUnknown() {
    List<GpuReading> rs = new ArrayList<>();
    for (int i = 0; i <= 4; i++) {
      rs.add(new GpuReading(i * S, Map.of(
          "0", new GpuReading.Gpu(300, 80, 100, NAN, NAN, NAN, 300.0 * i),
          "1", new GpuReading.Gpu(200, 60, 100, NAN, NAN, NAN, NAN))));
    }
    GpuStage g = GpuFigures.of(GpuKind.DCGM, rs, new ServerFigures.Span(0, S, 3 * S, 4 * S), 1000, 10, NAN);
    assertThat(g.gpus()).isEqualTo(2);
    assertThat(g.energySource()).isEqualTo("mixed");
    assertThat(g.energyJoules()).isCloseTo(600 + 400, within(1e-9));
    assertThat(g.powerMeanWatts()).isEqualTo(500);
    assertThat(g.utilMeanPercent()).isEqualTo(70);
    assertThat(g.memoryMeanMib()).isEqualTo(200);

    List<GpuReading> noEnergy = List.of(new GpuReading(0, Map.of("0", new GpuReading.Gpu(NAN, 1, 1, NAN, NAN, NAN,
        NAN))));
    GpuStage none = GpuFigures.of(GpuKind.DCGM, noEnergy, new ServerFigures.Span(0, 0, S, S), 10, 1, NAN);
    assertThat(none.energyJoules()).isNaN();
    assertThat(none.joulesPerOutputToken()).isNaN();
  }
}
