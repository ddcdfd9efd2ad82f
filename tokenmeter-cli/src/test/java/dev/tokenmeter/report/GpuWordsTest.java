package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.scrape.GpuKind;
import dev.tokenmeter.scrape.GpuStage;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The GPU figures in words: a stage's line and the sweep's sentence. */
class GpuWordsTest {
  private static final double NAN = Double.NaN;

  private static GpuStage stage(double watts, double joulesPerToken) {
    return new GpuStage(GpuKind.DCGM, 8, 10, 60, watts, watts * 1.1, 87, 90, NAN, NAN, NAN, NAN, NAN,
        joulesPerToken * 1e5, "counter", joulesPerToken, 50, 1000 / joulesPerToken, NAN, List.of(),
        GpuStage.Series.empty());
  }

  @Test
  void theSweepSentenceComparesTheLastStageWithTheFirst() {
    String words = GpuWords.compare(List.of(stage(3900, 0.61), stage(5100, 0.42)), List.of("16 users", "64 users"));
    assertThat(words).isEqualTo("at 64 users the GPUs drew 5.1 kW, 0.42 J per output token, 31% less than at 16 users");
    assertThat(GpuWords.compare(List.of(stage(500, 0.2), stage(600, 0.3)), List.of("1 user", "2 users")))
        .endsWith("50% more than at 1 user");
    assertThat(GpuWords.compare(Arrays.asList(stage(500, 0.2), null), List.of("a", "b"))).isNull();
  }

  @Test
  void aStageLineSaysTheSourceAndWhyThereIsNoEnergy() {
    assertThat(GpuWords.stage(stage(5100, 0.42), "USD"))
        .isEqualTo("GPUs (DCGM, 8): 5.1 kW mean, 5.6 kW peak, util 87%; 0.42 J per output token (energy counter),"
            + " 2,381 tokens/s per kW");
    GpuStage none = new GpuStage(GpuKind.AMD, 2, 3, 60, 900, 950, 50, 60, NAN, NAN, NAN, NAN, NAN, NAN, "none", NAN,
        NAN, NAN, NAN, List.of(), GpuStage.Series.empty());
    assertThat(GpuWords.stage(none, null)).endsWith("; no energy per token (no energy reading)");
    assertThat(GpuWords.load(0, 2.5)).isEqualTo("2.50 req/s");
    assertThat(GpuWords.load(1, NAN)).isEqualTo("1 user");
  }
}
