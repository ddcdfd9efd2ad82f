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

  @Test
  void aModelNoFitHasSeenGetsItsOwnSetupsErrorsByProfile() {
    List<String> lines =
        HeldOutAccuracy.describe(EngineConfig.of(Presets.model("deepseek-r1"), Presets.gpu("h200")).withTensorParallel(8));
    assertThat(lines).hasSize(3);
    assertThat(lines.get(2)).isEqualTo(
        "accuracy on deepseek-r1, a model no fit has seen, simulated at this calibration against its"
            + " published setups (docs/ACCURACY.md, Models the fit never saw), median signed error"
            + " (median |error|): sglang TPOT/ITL +4.4% (34.3%), output throughput +232.6% (232.6%),"
            + " TTFT -70.5% (70.5%), p99s -70.3% (70.3%); vllm TPOT/ITL -57.8% (57.8%), output"
            + " throughput +180.8% (180.8%), TTFT -69.0% (69.0%), p99s -65.1% (65.1%): mostly"
            + " optimistic, read throughput as high and latencies as low");
  }

  @Test
  void aModelOfThatKindWithoutSetupsGetsEveryUnseenModelsErrors() {
    // DeepSeek-V3 (latent attention, 256 experts), Qwen3-30B-A3B and Llama 4 Maverick (128
    // experts): none has published setups of its own in the study
    for (String id : List.of("deepseek-v3", "qwen3-30b-a3b", "llama-4-maverick")) {
      assertThat(HeldOutAccuracy.unseenKind(Presets.model(id))).as(id).isTrue();
      assertThat(HeldOutAccuracy.unseenLine(Presets.model(id))).as(id).hasValueSatisfying(l -> assertThat(l)
          .startsWith("accuracy on fine-grained mixture-of-experts and latent-attention models")
          .contains("against 4 such models' published setups")
          .contains("output throughput +125.4% (125.4%)"));
    }
  }

  @Test
  void denseModelsAndMixtralGetNoUnseenLine() {
    // Mixtral's 8 experts are in the fit (TensorRT-LLM's sources); Llama 4 Scout has 16
    assertThat(HeldOutAccuracy.unseenKind(Presets.model("mixtral-8x7b"))).isFalse();
    assertThat(HeldOutAccuracy.unseenKind(Presets.model("llama-4-scout"))).isTrue();
    assertThat(HeldOutAccuracy.unseenLine(LLAMA_8B)).isEmpty();
    assertThat(HeldOutAccuracy.describe(EngineConfig.of(Presets.model("mixtral-8x7b"), H100))).hasSize(2);
  }
}
