package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Hand-computed figures for latent attention, expert reads, 4-bit weights and sliding windows. */
class ModernModelsTest {
  private static final ModelSpec DSV3 = Presets.model("deepseek-v3");
  private static final ModelSpec GPT_OSS = Presets.model("gpt-oss-120b");
  private static final ModelSpec GEMMA = Presets.model("gemma-3-27b");

  @Test
  void latentAttentionCachesTheLatentAndTheRopeKeyOnEveryRank() {
    // 61 layers × (512 + 64) values × 2 B, not 2 × 61 × 128 heads × 192 × 2 B = 5,996,544 B
    assertThat(DSV3.kvBytesPerTokenPerGpu(Precision.BF16, 1)).isEqualTo(70_272);
    assertThat(DSV3.kvBytesPerTokenPerGpu(Precision.BF16, 8)).isEqualTo(70_272);
    Roofline r = new Roofline(EngineConfig.of(DSV3, Presets.gpu("h200")).withTensorParallel(8)
        .withPrecision(Precision.FP8, Precision.FP8));
    assertThat(r.kvBytesPerTokenPerGpu()).isEqualTo(35_136);
  }

  @Test
  void latentAttentionFlopsDependOnWhetherTheWeightsAreAbsorbed() {
    // decode (absorbed): 2 × 128 heads × (2 × 512 + 64) = 278,528 per pair and layer, × 61
    assertThat(DSV3.attentionFlops(1, 1, true)).isEqualTo(61 * 278_528.0);
    // prefill (expanded): 2 × 128 × (128 + 64 + 128) = 81,920, × 61
    assertThat(DSV3.attentionFlops(1, 1, false)).isEqualTo(61 * 81_920.0);
    // grouped-query attention is unchanged: 4 × 32 layers × 32 heads × 128
    assertThat(Presets.model("llama-3.1-8b").attentionFlops(10, 1, true)).isEqualTo(10 * 524_288.0);
  }

  @Test
  void expertsReadGrowWithTheDistinctExpertsABatchTouches() {
    // one routed expert over its 58 MoE layers: 3 × 7168 × 2048 × 58 = 2,554,331,136
    assertThat(DSV3.paramsPerExpert()).isEqualTo(2_554_331_136.0);
    // one token touches its 8 experts: exactly the active parameters
    assertThat(DSV3.paramsReadPerIteration(1)).isCloseTo(DSV3.activeParams(), within(1.0));
    // 32 tokens: 256 × (1 − (1 − 8/256)^32) = 163.32 distinct experts
    double distinct = 256 * (1 - Math.pow(31.0 / 32, 32));
    assertThat(distinct).isCloseTo(163.32, within(0.01));
    assertThat(DSV3.routedParamsReadPerIteration(32))
        .isCloseTo(distinct * 2_554_331_136.0, within(1.0));
    // a large batch reads (nearly) every expert: the whole model
    assertThat(DSV3.paramsReadPerIteration(4096)).isCloseTo(DSV3.totalParams(), within(1.0));
  }

  @Test
  void gptOssQuantizesOnlyItsExpertsToMxfp4() {
    Roofline r = new Roofline(EngineConfig.of(GPT_OSS, Presets.gpu("h100-sxm"))
        .withPrecision(Precision.MXFP4, Precision.BF16));
    // routed experts 128 × 36 × 24,891,840 = 114,701,598,720 params × 4.25 bits
    // + the other 2,127,557,952 (attention, router, norms, embeddings) × 2 B = 65,190,340,224 B,
    // the checkpoint's 60.8 GiB (65.3 GB)
    assertThat(r.weightBytesPerGpu()).isCloseTo(65_190_340_224.0, within(1.0));
  }

  @Test
  void fp4WeightsRunOnFp4TensorCoresWhereTheGpuHasThem() {
    GpuSpec b200 = Presets.gpu("b200");
    assertThat(b200.peakFlopsPerSecond(Precision.FP4)).isEqualTo(9_000e12);
    assertThat(b200.peakFlopsPerSecond(Precision.FP8)).isEqualTo(4_500e12);
    assertThat(Presets.gpu("mi355x").peakFlopsPerSecond(Precision.MXFP4)).isEqualTo(10_066.3e12);
    // Hopper has no FP4 tensor cores: weight-only, at the BF16 peak
    assertThat(Presets.gpu("h200").peakFlopsPerSecond(Precision.MXFP4)).isEqualTo(989.4e12);
    assertThat(Precision.FP4.bytesPerValue()).isEqualTo(0.5625); // 4 + 8/16 bits
    assertThat(Precision.MXFP4.bytesPerValue()).isEqualTo(0.53125); // 4 + 8/32 bits
    assertThat(AchievableMatmul.share(b200, Precision.FP4)).isEqualTo(AchievableMatmul.DEFAULT_FP8_SHARE);
  }

  @Test
  void slidingWindowLayersReadAtMostTheirWindow() {
    Roofline r = new Roofline(EngineConfig.of(GEMMA, Presets.gpu("h200")));
    double perToken = r.kvBytesPerTokenPerGpu();
    // 2 × 62 layers × 16 KV heads × 128 × 2 B: every layer counted for capacity
    assertThat(perToken).isEqualTo(507_904);
    // one sequence, 10,000 tokens of context: 10 global layers read them all, 52 read 1,024
    double expected = (10.0 / 62 * 10_000 + 52.0 / 62 * 1024 + 1) * perToken;
    assertThat(r.kvBytesRead(10_000, 1, 1)).isCloseTo(expected, within(1.0));
    // attention pairs: the 52 sliding layers attend to at most 1,024 positions
    assertThat(GEMMA.attentionFlops(10_000, 1, true))
        .isCloseTo(4.0 * 32 * 128 * (10 * 10_000 + 52 * 1024), within(1.0));
  }

  @Test
  void tiedEmbeddingsAreOneTableReadByTheLmHead() {
    Roofline r = new Roofline(EngineConfig.of(GEMMA, Presets.gpu("h200")));
    assertThat(r.weightBytesPerGpu()).isEqualTo(2.0 * 27_009_346_304L);
    assertThat(GEMMA.inputEmbeddingParams()).isZero();
  }
}
