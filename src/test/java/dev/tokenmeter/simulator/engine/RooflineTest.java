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
  void fp8KvCacheDoublesTheTokensAndFp8WeightsFreeMemory() {
    Roofline bf16 = new Roofline(EngineConfig.of(LLAMA_8B, H100));
    Roofline fp8 =
        new Roofline(EngineConfig.of(LLAMA_8B, H100).withPrecision(Precision.FP8, Precision.FP8));
    assertThat(fp8.kvBytesPerTokenPerGpu()).isEqualTo(65_536.0);
    assertThat(fp8.weightBytesPerGpu()).isEqualTo(8_030_261_248.0);
    // (58,027,663,360 + 8,030,261,248) / 65,536 = 1,007,964.6 → 62,997 blocks
    assertThat(fp8.kvCapacityBlocks()).isEqualTo(62_997);
    assertThat(fp8.kvCapacityTokens()).isGreaterThan(2 * bf16.kvCapacityTokens());
  }

  @Test
  void decodeAtBatchOneIsWeightBytesOverBandwidth() {
    Roofline r = new Roofline(ideal(LLAMA_8B, H100));
    // One token, 100 in context: (16,060,522,496 + 101 × 131,072) B / 3.35 TB/s = 4.798 ms
    assertThat(r.iterationNanos(1, 101, 100, 1)).isEqualTo(4_798_138L);
    // With the defaults, MBU 0.9, 5 ms per iteration and 0.08 ms per sequence:
    // 16,073,760,768 B / 3.015 TB/s = 5,331,264 ns, + 5,000,000 + 1 × 80,000 = 10.411 ms
    Roofline real = new Roofline(EngineConfig.of(LLAMA_8B, H100));
    assertThat(real.iterationNanos(1, 101, 100, 1)).isEqualTo(5_331_264L + 5_000_000L + 80_000L);
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
    // batch 64: (16,060,522,496 + 64 × 1,001 × 131,072) / 3.35e12 = 7.301 ms, still memory-bound
    assertThat(r.iterationNanos(64, 64 * 1_001.0, 64_000, 64)).isCloseTo(7_300_752L, within(1L));
  }

  @Test
  void perSequenceOverheadCountsSequencesNotTokens() {
    Roofline ideal = new Roofline(ideal(LLAMA_8B, H100));
    Roofline perSeq = new Roofline(ideal(LLAMA_8B, H100).withEfficiency(1.0, 1.0, 0, 80_000));
    // batch 64 decoding, 1,000 tokens of context each: 7,300,752 ns + 64 × 80 µs = 12,420,752 ns
    assertThat(perSeq.iterationNanos(64, 64 * 1_001.0, 64_000, 64))
        .isEqualTo(ideal.iterationNanos(64, 64 * 1_001.0, 64_000, 64) + 64 * 80_000L)
        .isCloseTo(12_420_752L, within(1L));
    // one sequence's 8,192-token prefill chunk pays the per-sequence cost once
    assertThat(perSeq.iterationNanos(8192, 8192.0 * 8193 / 2, 0, 1))
        .isEqualTo(ideal.iterationNanos(8192, 8192.0 * 8193 / 2, 0, 1) + 80_000L);
  }

  @Test
  void longPrefillIsComputeBound() {
    Roofline r = new Roofline(ideal(LLAMA_8B, H100));
    // 8,192 prompt tokens: 2 × 8.03e9 × 8192 + 4 × 32 × 32 × 128 × 8192 × 8193 / 2 FLOPs
    double flops = 2.0 * 8_030_261_248L * 8192 + 4.0 * 32 * 32 * 128 * (8192.0 * 8193 / 2);
    long expected = Math.round(flops / 989.4e12 * 1e9);
    assertThat(r.iterationNanos(8192, 8192.0 * 8193 / 2, 0, 1)).isEqualTo(expected);
    assertThat(expected).isBetween(150_000_000L, 152_000_000L);
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
    // one token: 160 all-reduces of 10 µs + 2·3/4·16 KB / 450 GB/s each
    double comm = 160 * (10e-6 + 1.5 * 8192 * 2 / 450e9);
    assertThat(tp4.allReduceSeconds(1)).isCloseTo(comm, within(1e-12));
    double memory = (70_553_706_496.0 * 2 / 4 + 101 * 81_920.0) / 3.35e12;
    assertThat(tp4.iterationNanos(1, 101, 100, 1))
        .isCloseTo(Math.round((memory + comm) * 1e9), within(1L));
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

  static java.util.List<ModelSpec> models() {
    return Presets.models();
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
    assertThatThrownBy(() -> Precision.parse("fp4")).hasMessageContaining("int4");
  }
}
