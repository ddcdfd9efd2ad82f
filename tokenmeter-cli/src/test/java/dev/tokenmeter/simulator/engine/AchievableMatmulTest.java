package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AchievableMatmulTest {

  @Test
  void measuredGpusTakeTheirMeasuredShareForThePeakTheyRunAt() {
    // BF16: A100 SXM 271.2 / 312, H100 SXM 794.5 / 989 (H200 the same), MI300X 668.4 / 1300
    assertThat(AchievableMatmul.share(Presets.gpu("a100-80gb"), Precision.BF16)).isEqualTo(0.869);
    assertThat(AchievableMatmul.share(Presets.gpu("a100-40gb"), Precision.FP16)).isEqualTo(0.869);
    assertThat(AchievableMatmul.share(Presets.gpu("h100-sxm"), Precision.BF16)).isEqualTo(0.803);
    assertThat(AchievableMatmul.share(Presets.gpu("h200"), Precision.BF16)).isEqualTo(0.803);
    assertThat(AchievableMatmul.share(Presets.gpu("mi300x"), Precision.BF16)).isEqualTo(0.514);
    // FP8: H100 SXM 1402.6 / 1979, H200 SXM 1453.4 / 1979
    assertThat(AchievableMatmul.share(Presets.gpu("h100-sxm"), Precision.FP8)).isEqualTo(0.709);
    assertThat(AchievableMatmul.share(Presets.gpu("h200"), Precision.FP8)).isEqualTo(0.734);
    // INT8 runs on the 8-bit tensor cores: the FP8 share; INT4 weights at the BF16 peak: BF16's
    assertThat(AchievableMatmul.share(Presets.gpu("h100-sxm"), Precision.INT8)).isEqualTo(0.709);
    assertThat(AchievableMatmul.share(Presets.gpu("h100-sxm"), Precision.INT4)).isEqualTo(0.803);
  }

  @Test
  void aPrecisionTheSourceDidNotMeasureOnAGpuTakesThatGpusOtherShare() {
    // the A100 has no FP8 tensor cores: FP8 weights run at the BF16 peak, so BF16's share anyway
    assertThat(AchievableMatmul.share(Presets.gpu("a100-80gb"), Precision.FP8)).isEqualTo(0.869);
    // its INT8 path is 8-bit, unmeasured: the A100's one measured share
    assertThat(AchievableMatmul.share(Presets.gpu("a100-80gb"), Precision.INT8)).isEqualTo(0.869);
    // the MI300X's FP8 is unmeasured: its BF16 share
    assertThat(AchievableMatmul.share(Presets.gpu("mi300x"), Precision.FP8)).isEqualTo(0.514);
  }

  @Test
  void anUnmeasuredGpuTakesTheMedianOfTheMeasuredNvidiaRows() {
    // BF16 rows 0.869, 0.838, 0.811, 0.803, 0.786, 0.776, 0.729: median 0.803
    // FP8 rows 0.776, 0.763, 0.745, 0.734, 0.723, 0.709: median (0.745 + 0.734) / 2 = 0.7395
    GpuSpec l40s = Presets.gpu("l40s");
    assertThat(AchievableMatmul.measured(l40s)).isFalse();
    assertThat(AchievableMatmul.measured(Presets.gpu("h200"))).isTrue();
    assertThat(EngineConfig.of(Presets.model("llama-3.1-8b"), l40s).describeEngine())
        .contains(String.format(java.util.Locale.ROOT, "MFU %.3f of an achievable 0.803 of the peak"
            + " (l40s not measured: the median of measured GPUs)", Calibration.MFU));
    assertThat(AchievableMatmul.share(l40s, Precision.BF16)).isEqualTo(0.803);
    assertThat(AchievableMatmul.share(l40s, Precision.FP8)).isEqualTo(0.7395);
    GpuSpec own = new GpuSpec("my-gpu", "A GPU from a spec file", 24L << 30, 1e12, 100e12, 0, 0,
        32e9, "PCIe Gen4 x16", "a spec file");
    assertThat(AchievableMatmul.share(own, Precision.FP8)).isEqualTo(0.803); // no FP8 cores: BF16
  }

  @Test
  void aSpecsOwnSharesWinOverTheTableWithTheSameRuleForAMissingPrecision() {
    GpuSpec h = Presets.gpu("h100-sxm");
    GpuSpec measured = new GpuSpec(h.id(), h.name(), h.memoryBytes(), h.memoryBandwidthBytesPerSecond(),
        h.bf16FlopsPerSecond(), h.fp8FlopsPerSecond(), h.int8OpsPerSecond(),
        h.interconnectBytesPerSecond(), h.interconnect(), "measured here", 0.75, 0);
    assertThat(AchievableMatmul.share(measured, Precision.BF16)).isEqualTo(0.75);
    // its FP8 share is not given: its own BF16 one, before the table's 0.709
    assertThat(AchievableMatmul.share(measured, Precision.FP8)).isEqualTo(0.75);
  }

  @Test
  void theRooflinesComputeRateIsPeakTimesShareTimesMfu() {
    // 2,048 prompt tokens of Llama 3.1 8B on one A100 at MFU 0.5: compute-bound, and the time is
    // c = FLOPs / (312 TFLOP/s × 0.869 × 0.5), with the weights and KV read at the datasheet
    // bandwidth (m) through the smooth roofline: c × (1 + (m/c)³)^(1/3)
    ModelSpec m = Presets.model("llama-3.1-8b");
    GpuSpec a100 = Presets.gpu("a100-80gb");
    Roofline r = new Roofline(EngineConfig.of(m, a100).withEfficiency(0.5, 1.0, 0, 0));
    double flops = 2.0 * (8_030_261_248L - 525_336_576L) * 2048
        + 4.0 * 32 * 32 * 128 * (2048.0 * 2049 / 2);
    double compute = flops / (312e12 * 0.869 * 0.5);
    double memory = (15_009_849_344.0 + 2048 * 131_072.0) / a100.memoryBandwidthBytesPerSecond();
    Roofline.Cost c = r.cost(2048, 2048.0 * 2049 / 2, 0, 1, 0, 1);
    assertThat(c.computeBound()).isTrue();
    assertThat(c.gpuNanos())
        .isEqualTo(Math.round(compute * Math.cbrt(1 + Math.pow(memory / compute, 3)) * 1e9));
  }
}
