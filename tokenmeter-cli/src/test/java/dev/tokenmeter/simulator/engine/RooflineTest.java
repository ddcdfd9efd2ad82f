package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RooflineTest {
  private static final long GIB = 1L << 30;
  private static final ModelSpec LLAMA_8B = Presets.model("llama-3.1-8b");
  private static final GpuSpec H100 = Presets.gpu("h100-sxm");

  /** Peak figures, no overhead: the pure roofline. */
  private static EngineConfig ideal(ModelSpec m, GpuSpec g) {
    return EngineConfig.of(m, g).withEfficiency(1.0, 1.0, 0, 0);
  }

  @Test
  void kvCapacityOfLlama8bOnOneH100() {
    Roofline r = new Roofline(EngineConfig.of(LLAMA_8B, H100));
    // weights 8,030,261,248 × 2 B; KV per token 2 × 32 layers × 8 heads × 128 × 2 B
    assertThat(r.weightBytesPerGpu()).isEqualTo(16_060_522_496.0);
    assertThat(r.kvBytesPerTokenPerGpu()).isEqualTo(131_072.0);
    // 80 GiB × 0.9 − 16,060,522,496 − 3 GiB = 58,027,663,360 B = 27,669 blocks of 16 tokens
    assertThat(r.kvCapacityBlocks()).isEqualTo(27_669);
    assertThat(r.kvCapacityTokens()).isEqualTo(442_704);
  }

  @Test
  void vllmKeepsOnlyTheWindowOfSlidingLayers() {
    // gpt-oss-120b: 36 layers, 18 of them windowed to 128 tokens, 72 KiB of KV a token in all
    ModelSpec gptOss = Presets.model("gpt-oss-120b");
    Roofline vllm = new Roofline(EngineConfig.of(gptOss, H100, EngineProfile.VLLM)
        .withPrecision(Precision.MXFP4, Precision.BF16));
    Roofline sglang = new Roofline(EngineConfig.of(gptOss, H100, EngineProfile.SGLANG)
        .withPrecision(Precision.MXFP4, Precision.BF16));
    assertThat(vllm.kvBytesPerTokenPerGpu()).isEqualTo(sglang.kvBytesPerTokenPerGpu()).isEqualTo(73_728.0);
    // a block is the 18 full layers' 16 tokens (half the bytes): twice the blocks, within rounding
    assertThat(vllm.kvCapacityBlocks()).isBetween(2 * sglang.kvCapacityBlocks(), 2 * sglang.kvCapacityBlocks() + 1);
    // each sequence adds its 18 windowed layers' blocks (as many as the full layers' per block):
    // at most 128 / 16 + 1 = 9
    assertThat(vllm.kvBlocksFor(100)).isEqualTo(7 + 7);
    assertThat(vllm.kvBlocksFor(1_000)).isEqualTo(63 + 9);
    assertThat(vllm.kvBlocksFor(32_000)).isEqualTo(2_000 + 9);
    assertThat(vllm.maxSequenceTokens()).isEqualTo(vllm.kvCapacityTokens() - 9 * 16);
    // SGLang counts the windowed layers per token like full ones
    assertThat(sglang.kvBlocksFor(1_000)).isEqualTo(63);
    assertThat(sglang.maxSequenceTokens()).isEqualTo(sglang.kvCapacityTokens());
  }

  @Test
  void gemma3sManyWindowedLayersAddTheirWindowInFullLayersBlocks() {
    // Gemma 3 27B: 62 layers, 52 windowed to 1,024: 5.2 windowed blocks per full one, and a
    // window of 1,024 / 16 + 1 = 65 blocks
    Roofline r = new Roofline(EngineConfig.of(Presets.model("gemma-3-27b"), H100, EngineProfile.VLLM)
        .withTensorParallel(2));
    assertThat(r.kvBlocksFor(160)).isEqualTo(10 + 52); // ceil(5.2 × 10)
    assertThat(r.kvBlocksFor(8_000)).isEqualTo(500 + 338); // ceil(5.2 × 65)
  }

  @Test
  void modelsWithoutWindowsAndLatentAttentionKeepEveryToken() {
    Roofline llama = new Roofline(EngineConfig.of(LLAMA_8B, H100, EngineProfile.VLLM));
    assertThat(llama.kvBlocksFor(1_000)).isEqualTo(63);
    assertThat(llama.maxSequenceTokens()).isEqualTo(llama.kvCapacityTokens());
  }

  @Test
  void fp8KvCacheDoublesTheTokensAndFp8WeightsFreeMemory() {
    Roofline bf16 = new Roofline(EngineConfig.of(LLAMA_8B, H100));
    Roofline fp8 =
        new Roofline(EngineConfig.of(LLAMA_8B, H100).withPrecision(Precision.FP8, Precision.FP8));
    assertThat(fp8.kvBytesPerTokenPerGpu()).isEqualTo(65_536.0);
    // FP8 weights, but the embedding and the LM head (2 × 128,256 × 4,096) stay BF16:
    // (8,030,261,248 − 1,050,673,152) × 1 B + 1,050,673,152 × 2 B
    assertThat(fp8.weightBytesPerGpu()).isEqualTo(9_080_934_400.0);
    // (80 GiB × 0.9 − 9,080,934,400 − 3 GiB) / (65,536 × 16) = 61,995.9 → 61,995 blocks
    assertThat(fp8.kvCapacityBlocks()).isEqualTo(61_995);
    assertThat(fp8.kvCapacityTokens()).isGreaterThan(2 * bf16.kvCapacityTokens());
  }

  @Test
  void decodeAtBatchOneIsWeightBytesOverBandwidth() {
    Roofline r = new Roofline(ideal(LLAMA_8B, H100));
    // One token, 100 in context. Weights read: all but the input embedding (a lookup),
    // (8,030,261,248 − 128,256 × 4,096) × 2 B = 15,009,849,344 B, + 101 × 131,072 B of KV:
    // 15,023,087,616 B / 3.35 TB/s = 4,484,504 ns.
    Roofline.Cost c = r.cost(1, 101, 100, 1, 1, 1);
    assertThat(c.gpuNanos()).isEqualTo(4_484_504L);
    assertThat(c.computeBound()).isFalse();
    // sampling: 128,256 FP32 logits written and read, 1,026,048 B / 3.35 TB/s = 306 ns
    assertThat(c.samplingNanos()).isEqualTo(306L);
    // a one-token batch replays vLLM's CUDA graph: one launch
    assertThat(c.launchNanos()).isEqualTo(EngineProfile.GRAPH_LAUNCH_NANOS);
    assertThat(c.allReduceNanos()).isZero();
    assertThat(r.iterationNanos(1, 101, 100, 1)).isEqualTo(4_484_504L + 306 + 20_000);
    // With the fitted defaults: MBU 0.88 (5,096,027 + 348 ns), vLLM's 2.0 ms + 7.5 µs per sequence
    Roofline real = new Roofline(EngineConfig.of(LLAMA_8B, H100));
    assertThat(real.iterationNanos(1, 101, 100, 1))
        .isEqualTo(5_096_027L + 348 + 20_000 + Calibration.VLLM_ITERATION_NANOS
            + Calibration.VLLM_PER_SEQUENCE_NANOS);
  }

  @Test
  void decodeTimeRisesWithBatchAsKvReadsGrow() {
    Roofline r = new Roofline(ideal(LLAMA_8B, H100));
    long previous = 0;
    for (int batch : new int[] {1, 8, 32, 64, 128}) {
      // every sequence holds 1,000 tokens and decodes one
      long nanos = r.iterationNanos(batch, batch * 1_001.0, batch * 1_000L, batch);
      assertThat(nanos).isGreaterThan(previous);
      previous = nanos;
    }
    // batch 64: m = (15,009,849,344 + 64 × 1,001 × 131,072) / 3.35e12 = 6,987,118 ns, still
    // memory-bound; c = 1.2513e12 FLOP / (989.4 × 0.803 TFLOP/s) = 1,251,395 ns; the smooth
    // roofline m × (1 + (c/m)³)^(1/3) = 7,000,473 ns. 64 samplers: 64 × 1,026,048 B = 19,602 ns
    Roofline.Cost c = r.cost(64, 64 * 1_001.0, 64_000, 64, 64, 64);
    assertThat(c.gpuNanos()).isEqualTo(7_000_473L);
    assertThat(c.computeShare()).isCloseTo(1 / (1 + Math.pow(6_987_118.19 / 1_251_394.73, 3)), within(1e-6));
    assertThat(c.computeBound()).isFalse();
    assertThat(c.samplingNanos()).isEqualTo(19_602L);
  }

  @Test
  void theSmoothRooflineCostsMostAtTheRidgeAndSplitsItsTimeForTheFit() {
    // k = 3: (c³ + m³)^(1/3). At the ridge, 4 and 4: 4 × 2^(1/3) = 5.0397, half of it each.
    assertThat(Roofline.overlap(4, 4)).isCloseTo(5.039684, within(1e-6));
    assertThat(Roofline.computeShare(4, 4)).isEqualTo(0.5);
    // 3 and 6: 6 × (1 + 1/8)^(1/3) = 6.2403; compute's share 27 / (27 + 216) = 1/9
    assertThat(Roofline.overlap(3, 6)).isCloseTo(6.240251, within(1e-6));
    assertThat(Roofline.computeShare(3, 6)).isCloseTo(1.0 / 9, within(1e-12));
    assertThat(Roofline.computeShare(6, 3)).isCloseTo(8.0 / 9, within(1e-12));
    // symmetric, degree 1, and the larger term alone when the other is nothing
    assertThat(Roofline.overlap(6, 3)).isEqualTo(Roofline.overlap(3, 6));
    assertThat(Roofline.overlap(30, 60)).isCloseTo(10 * Roofline.overlap(3, 6), within(1e-9));
    assertThat(Roofline.overlap(0, 7)).isEqualTo(7.0);
    assertThat(Roofline.overlap(0, 0)).isZero();
    // Euler: c·∂g/∂c + m·∂g/∂m = g, so MFU moves the compute share of the time to first order
    double c = 3, m = 6, h = 1e-6;
    double dc = (Roofline.overlap(c * (1 + h), m) - Roofline.overlap(c, m)) / h;
    assertThat(dc / Roofline.overlap(c, m)).isCloseTo(Roofline.computeShare(c, m), within(1e-5));
    // A 512-token prefill of Llama 3.1 8B on an H100 (MFU and MBU 1) sits near the ridge:
    // c = 7.7539e12 FLOP / (989.4 × 0.803 TFLOP/s) = 9,759,612 ns, m = (15,009,849,344 + 512 ×
    // 131,072) B / 3.35 TB/s = 4,500,585 ns; max would say 9,759,612, the smooth roofline says
    // 9,759,612 × (1 + 0.09806)^(1/3) = 10,068,739 ns (+3.2%)
    Roofline r = new Roofline(ideal(LLAMA_8B, H100));
    Roofline.Cost p = r.cost(512, 512.0 * 513 / 2, 0, 1, 0, 1);
    assertThat(p.gpuNanos()).isEqualTo(10_068_739L);
    assertThat(p.computeBound()).isTrue();
  }

  @Test
  void theAccuracyStudysOtherCandidatesForKAreTheirFormulas() {
    // k = 1: c + m, compute's share c / (c + m); 3 and 6: 9, 1/3
    assertThat(Roofline.overlap(3, 6, 1)).isCloseTo(9.0, within(1e-12));
    assertThat(Roofline.computeShare(3, 6, 1)).isCloseTo(1.0 / 3, within(1e-12));
    // k = 2: sqrt(9 + 36) = 6.7082; share 9 / 45 = 0.2
    assertThat(Roofline.overlap(3, 6, 2)).isCloseTo(6.708204, within(1e-6));
    assertThat(Roofline.computeShare(6, 3, 2)).isCloseTo(0.8, within(1e-12));
    // k = 4: 6 × (1 + 1/16)^(1/4) = 6.09163; share 81 / (81 + 1,296) = 1/17
    assertThat(Roofline.overlap(3, 6, 4)).isCloseTo(6.091630, within(1e-6));
    assertThat(Roofline.computeShare(3, 6, 4)).isCloseTo(1.0 / 17, within(1e-12));
    // k = ∞: the plain roofline, the larger term all of the time
    double inf = Double.POSITIVE_INFINITY;
    assertThat(Roofline.overlap(3, 6, inf)).isEqualTo(6.0);
    assertThat(Roofline.computeShare(3, 6, inf)).isZero();
    assertThat(Roofline.computeShare(6, 3, inf)).isEqualTo(1.0);
    // the cube path of k = 3 is the general formula
    assertThat(Roofline.overlap(3, 6, 3)).isCloseTo(6 * Math.pow(1 + Math.pow(0.5, 3), 1 / 3.0), within(1e-12));
    // and a config carries its k to the cost: the 512-token prefill above at k = ∞ is c alone
    Roofline plain = new Roofline(ideal(LLAMA_8B, H100).withOverlapExponent(inf));
    assertThat(plain.cost(512, 512.0 * 513 / 2, 0, 1, 0, 1).gpuNanos()).isEqualTo(9_759_612L);
    assertThatThrownBy(() -> ideal(LLAMA_8B, H100).withOverlapExponent(0.5))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlapExponent");
  }

  @Test
  void perSequenceOverheadCountsSequencesNotTokens() {
    Roofline ideal = new Roofline(ideal(LLAMA_8B, H100));
    Roofline perSeq = new Roofline(ideal(LLAMA_8B, H100).withEfficiency(1.0, 1.0, 0, 80_000));
    // batch 64 decoding, 1,000 tokens of context each: 64 × 80 µs on top
    assertThat(perSeq.cost(64, 64 * 1_001.0, 64_000, 64, 64, 64).sequenceOverheadNanos())
        .isEqualTo(64 * 80_000L);
    assertThat(perSeq.iterationNanos(64, 64 * 1_001.0, 64_000, 64))
        .isEqualTo(ideal.iterationNanos(64, 64 * 1_001.0, 64_000, 64) + 64 * 80_000L);
    // one sequence's 8,192-token prefill chunk pays the per-sequence cost once
    assertThat(perSeq.iterationNanos(8192, 8192.0 * 8193 / 2, 0, 1))
        .isEqualTo(ideal.iterationNanos(8192, 8192.0 * 8193 / 2, 0, 1) + 80_000L);
    // and the fixed per-iteration cost once per iteration, whatever the batch
    Roofline fixed = new Roofline(ideal(LLAMA_8B, H100).withEfficiency(1.0, 1.0, 3_000_000, 0));
    assertThat(fixed.cost(64, 64 * 1_001.0, 64_000, 64, 64, 64).iterationOverheadNanos())
        .isEqualTo(3_000_000L);
  }

  @Test
  void longPrefillIsComputeBoundAndLaunchesEagerly() {
    Roofline r = new Roofline(ideal(LLAMA_8B, H100));
    // 8,192 prompt tokens: 2 × (8.03e9 − 0.525e9 embedding) × 8192 + attention
    // 4 × 32 × 32 × 128 × 8192 × 8193 / 2 FLOPs at 989.4 TFLOP/s × the H100's achievable BF16
    // share, 0.803 (MFU 1 here) = 176,912,658 ns; the weights and KV, 4,801,072 ns, add 1,179 ns
    // through the smooth roofline's cube: c × (1 + (m/c)³)^(1/3) = 176,913,837 ns
    double flops = 2.0 * (8_030_261_248L - 525_336_576L) * 8192
        + 4.0 * 32 * 32 * 128 * (8192.0 * 8193 / 2);
    double compute = flops / (989.4e12 * 0.803) * 1e9;
    double memory = (15_009_849_344.0 + 8192 * 131_072.0) / 3.35e12 * 1e9;
    long expected = Math.round(compute * Math.cbrt(1 + Math.pow(memory / compute, 3)));
    Roofline.Cost c = r.cost(8192, 8192.0 * 8193 / 2, 0, 1, 0, 1);
    assertThat(c.gpuNanos()).isEqualTo(expected).isEqualTo(176_913_837L);
    assertThat(c.computeBound()).isTrue();
    // 8,192 tokens exceed vLLM's largest graph (512): 32 layers launched eagerly, 40 µs each
    assertThat(c.launchNanos()).isEqualTo(32 * EngineProfile.EAGER_LAUNCH_NANOS_PER_LAYER);
  }

  @Test
  void tensorParallelSplitsWeightsAndAddsAllReduces() {
    ModelSpec llama70 = Presets.model("llama-3.1-70b");
    assertThatThrownBy(() -> new Roofline(EngineConfig.of(llama70, H100)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not fit");
    Roofline tp4 = new Roofline(ideal(llama70, H100).withTensorParallel(4));
    assertThat(tp4.weightBytesPerGpu()).isEqualTo(70_553_706_496.0 * 2 / 4);
    // 8 KV heads over 4 GPUs: 2 per GPU → 2 × 80 × 2 × 128 × 2 B
    assertThat(tp4.kvBytesPerTokenPerGpu()).isEqualTo(81_920.0);
    // one token: 160 all-reduces of 5 µs (NVLink) + 2·3/4·16 KB / 450 GB/s each = 808,738 ns
    double comm = 160 * (5e-6 + 1.5 * 8192 * 2 / 450e9);
    assertThat(tp4.allReduceSeconds(1)).isCloseTo(comm, within(1e-12));
    Roofline.Cost c = tp4.cost(1, 101, 100, 1, 1, 1);
    assertThat(c.allReduceNanos()).isEqualTo(808_738L);
    // (70,553,706,496 − 128,256 × 8,192) × 2 / 4 B + 101 × 81,920 B at 3.35 TB/s
    assertThat(c.gpuNanos()).isEqualTo(10_376_057L);
    // over PCIe the latency is 20 µs per all-reduce
    Roofline pcie = new Roofline(ideal(llama70, Presets.gpu("h100-pcie")).withTensorParallel(4));
    assertThat(pcie.config().allReduceLatencyNanos()).isEqualTo(20_000L);
  }

  @Test
  void mixtureOfExpertsReadsActiveWeightsAtOneTokenAndAllAtMany() {
    ModelSpec mixtral = Presets.model("mixtral-8x7b");
    assertThat(mixtral.paramsReadPerIteration(1)).isCloseTo(12_879_925_248.0, within(1.0));
    assertThat(mixtral.paramsReadPerIteration(256)).isCloseTo(46_702_792_704.0, within(1.0));
    // two tokens touch 1 − (3/4)² = 7/16 of the experts on average
    double perExpert = (46_702_792_704.0 - 12_879_925_248.0) / 6;
    double shared = 46_702_792_704.0 - 8 * perExpert;
    assertThat(mixtral.paramsReadPerIteration(2)).isCloseTo(shared + 8 * perExpert * 7 / 16, within(1.0));
  }

  @Test
  void fp8WeightsUseTheFp8PeakOnlyWhereTheGpuHasOne() {
    assertThat(H100.peakFlopsPerSecond(Precision.FP8)).isEqualTo(1_978.9e12);
    assertThat(Presets.gpu("a100-80gb").peakFlopsPerSecond(Precision.FP8)).isEqualTo(312e12);
    assertThat(Presets.gpu("a100-80gb").peakFlopsPerSecond(Precision.INT8)).isEqualTo(624e12);
    assertThat(H100.peakFlopsPerSecond(Precision.INT4)).isEqualTo(989.4e12);
    assertThat(Presets.gpu("h200").memoryBytes()).isEqualTo(141 * GIB);
  }

  /** The Llama-style presets, whose count {@link ModelSpec#countParams()} recomputes. */
  static java.util.List<ModelSpec> models() {
    return Presets.models().stream().filter(m -> m.architecture().family().isEmpty()).toList();
  }

  @ParameterizedTest
  @MethodSource("models")
  void presetParameterCountsMatchTheirShapes(ModelSpec m) {
    assertThat(m.countParams()).isEqualTo(m.totalParams());
    assertThat(m.headDim()).isEqualTo(128);
  }

  @Test
  void mixtralActiveParametersMatchTwoExpertsPerToken() {
    ModelSpec m = Presets.model("mixtral-8x7b");
    long h = 4096;
    long perExpert = 3 * h * 14336;
    assertThat(m.totalParams() - m.activeParams()).isEqualTo(32 * 6 * perExpert);
  }

  @Test
  void unknownPresetsNameTheKnownOnes() {
    assertThatThrownBy(() -> Presets.model("gpt-5"))
        .hasMessageContaining("llama-3.1-8b")
        .hasMessageContaining("qwen2.5-72b");
    assertThatThrownBy(() -> Presets.gpu("tpu")).hasMessageContaining("mi300x");
    assertThat(Presets.gpu("H100-SXM")).isSameAs(H100);
    assertThat(Precision.parse("bfloat16")).isEqualTo(Precision.BF16);
    assertThatThrownBy(() -> Precision.parse("fp2")).hasMessageContaining("int4");
  }
}
