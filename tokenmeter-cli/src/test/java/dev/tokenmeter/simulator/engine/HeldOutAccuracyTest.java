package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.simulator.engine.HeldOutAccuracy.Quantity;
import dev.tokenmeter.simulator.engine.HeldOutAccuracy.Source;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@code simulate} says about its own accuracy. That the figures are the study's is
 * {@code AccuracyFitTest}'s check; this one checks which of them a run is shown.
 */
class HeldOutAccuracyTest {
  private static final ModelSpec LLAMA_8B = Presets.model("llama-3.1-8b");
  private static final ModelSpec LLAMA_70B = Presets.model("llama-3.1-70b");
  private static final GpuSpec H100 = Presets.gpu("h100-sxm");
  private static final GpuSpec MI300X = Presets.gpu("mi300x");

  @Test
  void vllmOnNvidiaRestsOnItsThreeCudaSources() {
    EngineConfig c = EngineConfig.of(LLAMA_8B, H100);
    assertThat(HeldOutAccuracy.behind(c)).extracting(Source::key)
        .containsExactly("silybench", "rtx4090-vllm", "gpustack-vllm");
    List<String> lines = HeldOutAccuracy.describe(c);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).isEqualTo(
        "accuracy, held out by source (docs/SIMULATOR.md Accuracy): median |error| TPOT/ITL 8.1%"
            + " (p90 37.9%), output throughput 8.8% (p90 73.1%), TTFT 25.0% (p90 78.0%), p99s 10.4%"
            + " (p90 36.3%) over 11 sources");
    // each source lists only the quantities it publishes, in the same order
    assertThat(lines.get(1)).isEqualTo(
        "accuracy of the vllm profile on CUDA GPUs, each source held out: silybench TPOT/ITL 7.7%,"
            + " output throughput 6.9%, p99s 9.9%; rtx4090-vllm output throughput 0.8%, TTFT 108.2%,"
            + " p99s 22.4%; gpustack-vllm TPOT/ITL 7.2%, output throughput 13.4%, TTFT 49.6%");
  }

  @Test
  void theRocmPlatformHasItsOwnSource() {
    EngineConfig c = EngineConfig.of(LLAMA_70B, MI300X).withTensorParallel(8);
    assertThat(HeldOutAccuracy.behind(c)).extracting(Source::key).containsExactly("rocm-vllm");
    assertThat(HeldOutAccuracy.describe(c).get(1)).isEqualTo(
        "accuracy of the vllm profile on ROCm GPUs, each source held out: rocm-vllm output"
            + " throughput 84.4%");
  }

  @Test
  void aProfileNoSourceMeasuresOnItsPlatformSaysSo() {
    EngineConfig c =
        EngineConfig.of(LLAMA_70B, MI300X, EngineProfile.of("sglang")).withTensorParallel(8);
    assertThat(HeldOutAccuracy.behind(c)).isEmpty();
    assertThat(HeldOutAccuracy.describe(c).get(1)).isEqualTo(
        "accuracy: no source measures the sglang profile on ROCm GPUs; its overheads are the fit's"
            + " for the profile plus the platform's extra, untested");
  }

  @Test
  void flagsThatOverrideTheCalibrationAreNamed() {
    EngineConfig c = EngineConfig.of(LLAMA_8B, H100).withEfficiency(0.5, 0.9, 1_000_000, 0);
    assertThat(c.fittedCalibration()).isFalse();
    assertThat(HeldOutAccuracy.describe(c).get(0))
        .endsWith("over 11 sources; measured at the fitted calibration, which flags override here");
  }

  @Test
  void everyProfileHasASourceOnNvidiaAndThePooledFiguresCoverEveryQuantity() {
    for (EngineProfile p : EngineProfile.all()) {
      assertThat(HeldOutAccuracy.behind(EngineConfig.of(LLAMA_8B, H100, p))).as(p.id()).isNotEmpty();
    }
    assertThat(HeldOutAccuracy.POOLED).containsOnlyKeys(Quantity.values());
  }
}
