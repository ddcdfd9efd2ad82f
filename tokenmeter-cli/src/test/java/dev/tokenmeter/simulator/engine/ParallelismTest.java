package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * Data-parallel attention and expert parallelism, by hand: DeepSeek-R1 (FP8 weights, BF16 KV) on
 * 8 × H200, tensor-parallel against DP attention 8 + EP 8.
 */
class ParallelismTest {
  private static final ModelSpec R1 = Presets.model("deepseek-r1");
  private static final GpuSpec H200 = Presets.gpu("h200");
  private static final EngineConfig TP8 = EngineConfig.of(R1, H200, EngineProfile.SGLANG)
      .withTensorParallel(8).withPrecision(Precision.FP8, Precision.BF16)
      .withEfficiency(1, 1, 0, 0);
  private static final EngineConfig DP8_EP8 = TP8.withParallelism(new Parallelism(8, 8));
  private static final double PER_EXPERT = 2_554_331_136.0; // (671.0B − 37.6B) / (256 − 8)

  @Test
  void theExpectedBusiestRankIsTheMaximumOfBinomials() {
    // Bin(2, 0.5) twice: P(max ≥ 1) = 1 − 0.25² , P(max ≥ 2) = 1 − 0.75²: 0.9375 + 0.4375
    assertThat(Parallelism.expectedMaxBinomial(2, 0.5, 2)).isCloseTo(1.375, within(1e-12));
    assertThat(Parallelism.expectedMaxBinomial(32, 0.25, 1)).isCloseTo(8, within(1e-12));
    // one token of DeepSeek on EP 8: 32 experts a rank, each touched with 1/32; mean 1, busiest 2.544
    assertThat(Parallelism.expectedMaxBinomial(32, 1.0 / 32, 8)).isCloseTo(2.5445, within(1e-4));
    assertThat(Parallelism.expectedMaxBinomial(32, 1, 8)).isEqualTo(32);
  }

  @Test
  void attentionWeightsAreCountedFromTheShapes() {
    // per layer: q 7168·1536 + 1536 + 1536·128·192, kv_a 7168·576 + 512, kv_b 512·128·256,
    // o 128·128·7168 = 187,107,328; × 61
    assertThat(R1.attentionParams()).isEqualTo(11_413_547_008.0);
    // Llama 3.1 8B: 32 × (4096·4096 + 2·4096·1024 + 4096·4096)
    assertThat(Presets.model("llama-3.1-8b").attentionParams()).isEqualTo(1_342_177_280.0);
    assertThat(R1.routedParams()).isEqualTo(256 * PER_EXPERT);
  }

  @Test
  void dataParallelAttentionReplicatesTheAttentionAndSplitsTheLatentCache() {
    Roofline tp = new Roofline(TP8);
    Roofline dp = new Roofline(DP8_EP8);
    // TP 8: (669,173,061,120 at 1 B + the two 926,679,040 tables at 2 B) / 8
    assertThat(tp.weightBytesPerGpu()).isCloseTo(84_109_972_160.0, within(1.0));
    // DP 8 + EP 8: attention whole 11,413,547,008; the rest (5,704,101,376, tables at 2 B)
    // whole 7,557,459,456; routed experts / 8: 81,738,596,352
    assertThat(dp.weightBytesPerGpu()).isCloseTo(100_709_602_816.0, within(1.0));
    // the latent, 61 × 576 × 2 B, whole on every GPU either way
    assertThat(dp.kvBytesPerTokenPerGpu()).isEqualTo(70_272.0);
    // TP: (141 GiB × 0.9 − 84.11 GB − 3 GiB) / (70,272 × 16) = 43,515 blocks, one cache
    assertThat(tp.kvCapacityTokens()).isEqualTo(43_515L * 16);
    // DP: (… − 100.71 GB − 3 GiB) / 1,124,352 = 28,751 blocks on each of 8 groups
    assertThat(dp.kvCapacityTokens()).isEqualTo(28_751L * 16 * 8);
    assertThat(DP8_EP8.schedulerMaxNumSeqs()).isEqualTo(8 * TP8.maxNumSeqs());
    assertThat(DP8_EP8.schedulerMaxBatchedTokens()).isEqualTo(8 * TP8.maxBatchedTokens());
  }

  @Test
  void oneDecodingTokenPaysTheAllToAllsAndTheBusiestRanksExperts() {
    Roofline dp = new Roofline(DP8_EP8);
    Roofline.Cost c = dp.cost(1, 1001, 1000, 1, 1, 1);
    // 58 MoE layers × (dispatch 10 µs + 7 copies × (7,168 + 224) B / 450 GB/s
    //                  + combine 10 µs + 7 × 14,336 B / 450 GB/s) = 1,179,603 ns
    assertThat(c.allToAllNanos()).isCloseTo(1_179_603L, within(1L));
    // attention groups of one GPU, rest beside the experts: no all-reduce
    assertThat(c.allReduceNanos()).isZero();
    // bytes: attention 11,413,547,008 + rest read (the input embedding not) 5,704,101,376
    //   + the busiest rank's 2.5445 experts + 1,001 tokens of latent at 70,272 B
    double busiest = Parallelism.expectedMaxBinomial(32, 1.0 / 32, 8);
    double bytes = 11_413_547_008.0 + 5_704_101_376.0 + busiest * PER_EXPERT + 1001 * 70_272.0;
    double memoryNanos = bytes / 4.8e12 * 1e9;
    assertThat(c.gpuNanos()).isCloseTo(Math.round(memoryNanos), within(2_000L)); // + the small compute term
    assertThat(c.gpuNanos()).isGreaterThan(Math.round(memoryNanos));
    assertThat(c.totalNanos()).isEqualTo(c.gpuNanos() + c.samplingNanos() + c.launchNanos()
        + c.allToAllNanos());
  }

  @Test
  void atLargeBatchesEveryRankReadsAllItsExpertsAndDataParallelismPays() {
    Roofline tp = new Roofline(TP8);
    Roofline dp = new Roofline(DP8_EP8);
    // 512 sequences decoding at 2,000 tokens of context: DP reads 1/8 of the latent per GPU
    Roofline.Cost t = tp.cost(512, 512 * 2001.0, 512 * 2000L, 512, 512, 512);
    Roofline.Cost d = dp.cost(512, 512 * 2001.0, 512 * 2000L, 512, 512, 512);
    assertThat(new ParallelCost(DP8_EP8).routedBytesRead(512))
        .isCloseTo(32 * PER_EXPERT, within(1e3));
    assertThat(d.gpuNanos()).isLessThan(t.gpuNanos());
    // SGLang graphs decode batches up to 160: 512 at TP 8 launch eagerly (61 layers × 40 µs),
    // 64 a group under DP 8 replay their graph; 135 µs host time for 64 sequences, not 512
    assertThat(t.launchNanos()).isEqualTo(61 * EngineProfile.EAGER_LAUNCH_NANOS_PER_LAYER);
    assertThat(d.launchNanos()).isEqualTo(EngineProfile.GRAPH_LAUNCH_NANOS);
    // each GPU dispatches its 64 tokens: 64 × 7 copies
    double[] a2a = new ParallelCost(DP8_EP8).allToAllSeconds(64);
    assertThat(a2a[0]).isCloseTo(10e-6 + 64 * 7 * 7392 / 450e9, within(1e-12));
    assertThat(a2a[1]).isCloseTo(10e-6 + 64 * 7 * 14336 / 450e9, within(1e-12));
  }

  @Test
  void beyondOneNvlinkDomainCopiesCrossTheNetwork() {
    EngineConfig c = TP8.withTensorParallel(16).withParallelism(new Parallelism(16, 16));
    double[] a2a = new ParallelCost(c).allToAllSeconds(100);
    // 100 tokens × 8 × 15/16 = 750 copies; 7 of 15 peers in the node, 8 over a 50 GB/s card
    double copies = 750;
    assertThat(a2a[0]).isCloseTo(40e-6 + copies * 7392 * 8 / 15 / 50e9, within(1e-12));
  }

  @Test
  void plainTensorParallelismIsUnchanged() {
    Roofline.Cost c = new Roofline(TP8).cost(1, 1001, 1000, 1, 1, 1);
    assertThat(c.allToAllNanos()).isZero();
    assertThat(TP8.withParallelism(Parallelism.NONE)).isEqualTo(TP8);
  }

  @Test
  void badShapesAreOneLine() {
    assertThatThrownBy(() -> TP8.withParallelism(new Parallelism(3, 1)))
        .hasMessage("--dp-attention 3 must divide --gpus 8 (each attention group has the same GPUs)");
    assertThatThrownBy(() -> TP8.withParallelism(new Parallelism(1, 3)))
        .hasMessageContaining("--expert-parallel 3 must divide --gpus 8 and the model's 256 experts");
    EngineConfig dense = EngineConfig.of(Presets.model("llama-3.1-70b"), H200).withTensorParallel(8);
    assertThatThrownBy(() -> dense.withParallelism(new Parallelism(1, 8)))
        .hasMessageContaining("llama-3.1-70b is dense");
    // BF16 on 8 × H100: 22.8 GB of attention on every GPU and 1.3 TB of experts over 8
    assertThatThrownBy(() -> new Roofline(EngineConfig.of(R1, Presets.gpu("h100-sxm"))
        .withTensorParallel(8).withPrecision(Precision.BF16, Precision.BF16)
        .withParallelism(new Parallelism(8, 8))))
        .hasMessageStartingWith("deepseek-r1 (bf16 weights, ")
        .hasMessageContaining("GB per GPU with DP attention 8, EP 8) does not fit on 8 x h100-sxm")
        .hasMessageContaining("--expert-parallel");
    assertThatThrownBy(() -> new Roofline(DP8_EP8.withSpeculation(
        new Speculation(Speculation.Kind.MTP, 1, 0.8, null))))
        .hasMessageContaining("not modelled yet");
  }
}
