package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which stack a GPU runs, and what the stack adds to the profiles' host overheads. */
class PlatformTest {
  private static final ModelSpec LLAMA_70B = Presets.model("llama-3.1-70b");
  private static final GpuSpec MI300X = Presets.gpu("mi300x");
  private static final GpuSpec H100 = Presets.gpu("h100-sxm");

  @Test
  void amdInstinctGpusRunRocmAndEveryOtherPresetCuda() {
    assertThat(Platform.of(MI300X)).isEqualTo(Platform.ROCM);
    for (GpuSpec g : Presets.gpus()) {
      if (g.id().startsWith("mi")) {
        assertThat(Platform.of(g)).as(g.id()).isEqualTo(Platform.ROCM);
      } else {
        assertThat(Platform.of(g)).as(g.id()).isEqualTo(Platform.CUDA);
      }
    }
    // a GPU file names its own: by the vendor in the name, or an id "mi" and a digit
    assertThat(Platform.of(gpu("mi325x", "Instinct MI325X"))).isEqualTo(Platform.ROCM);
    assertThat(Platform.of(gpu("my-card", "AMD Radeon Pro W7900"))).isEqualTo(Platform.ROCM);
    assertThat(Platform.of(gpu("mini", "Some GPU"))).isEqualTo(Platform.CUDA);
    assertThat(Platform.of(gpu("mi", "Some GPU"))).isEqualTo(Platform.CUDA);
    assertThat(Platform.CUDA.iterationExtraNanos()).isZero();
    assertThat(Platform.CUDA.perSequenceExtraNanos()).isZero();
    assertThat(Platform.ROCM.id()).isEqualTo("rocm");
  }

  @Test
  void theRocmExtraAddsToEveryProfilesOverheadsOnAnInstinctGpu() {
    for (EngineProfile p : EngineProfile.all()) {
      EngineConfig mi = EngineConfig.of(LLAMA_70B, MI300X, p);
      assertThat(mi.iterationOverheadNanos())
          .isEqualTo(p.iterationOverheadNanos() + Calibration.ROCM_ITERATION_NANOS);
      assertThat(mi.perSequenceOverheadNanos())
          .isEqualTo(p.perSequenceNanos() + Calibration.ROCM_PER_SEQUENCE_NANOS);
      assertThat(mi.fittedCalibration()).isTrue();
      EngineConfig h = EngineConfig.of(LLAMA_70B, H100, p);
      assertThat(h.iterationOverheadNanos()).isEqualTo(p.iterationOverheadNanos());
      assertThat(h.perSequenceOverheadNanos()).isEqualTo(p.perSequenceNanos());
    }
    // switching profiles keeps the platform's share
    EngineConfig switched = EngineConfig.of(LLAMA_70B, MI300X).withProfile(EngineProfile.SGLANG);
    assertThat(switched.iterationOverheadNanos())
        .isEqualTo(Calibration.SGLANG_ITERATION_NANOS + Calibration.ROCM_ITERATION_NANOS);
    // flags replace the total: no longer the fitted calibration
    assertThat(EngineConfig.of(LLAMA_70B, MI300X).withEfficiency(0.5, 0.8, 1_000, 0)
        .fittedCalibration()).isFalse();
  }

  @Test
  void aBatchOnTheMi300xPaysTheExtraOncePerIterationAndOncePerSequence() {
    // Llama 3.1 70B FP8 on 8 × MI300X, peak efficiencies, extras 2 ms + 50 µs set by hand:
    // 32 decoding sequences pay 2,000,000 + 32 × 50,000 = 3,600,000 ns beyond the ideal step.
    EngineConfig ideal = EngineConfig.of(LLAMA_70B, MI300X).withTensorParallel(8)
        .withPrecision(Precision.FP8, Precision.BF16).withEfficiency(1, 1, 0, 0);
    Roofline bare = new Roofline(ideal);
    Roofline extra = new Roofline(ideal.withEfficiency(1, 1, 2_000_000, 50_000));
    Roofline.Cost c = extra.cost(32, 32 * 501.0, 32 * 500L, 32, 32, 32);
    assertThat(c.iterationOverheadNanos()).isEqualTo(2_000_000L);
    assertThat(c.sequenceOverheadNanos()).isEqualTo(32 * 50_000L);
    assertThat(c.totalNanos() - bare.cost(32, 32 * 501.0, 32 * 500L, 32, 32, 32).totalNanos())
        .isEqualTo(3_600_000L);
  }

  @Test
  void theEngineLineNamesThePlatformsShareWhenItHasOne() {
    String rocm = EngineConfig.of(LLAMA_70B, MI300X).describeEngine();
    assertThat(rocm).contains(String.format(java.util.Locale.ROOT,
        "of which the rocm platform adds %.3f ms + %.4f ms",
        Calibration.ROCM_ITERATION_NANOS / 1e6, Calibration.ROCM_PER_SEQUENCE_NANOS / 1e6));
    assertThat(EngineConfig.of(LLAMA_70B, H100).describeEngine()).doesNotContain("platform");
    assertThat(EngineConfig.of(LLAMA_70B, MI300X).withEfficiency(0.5, 0.8, 0, 0).describeEngine())
        .contains("set by flags)").doesNotContain("platform");
  }

  private static GpuSpec gpu(String id, String name) {
    return new GpuSpec(id, name, 192L << 30, 5.3e12, 1.3e15, 2.6e15, 2.6e15, 64e9, "Infinity Fabric",
        "test");
  }
}
