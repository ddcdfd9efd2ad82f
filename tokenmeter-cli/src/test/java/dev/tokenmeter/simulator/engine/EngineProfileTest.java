package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine profiles' limits, CUDA-graph rules, scheduling and admission policies. */
class EngineProfileTest {
  private static final ModelSpec LLAMA_8B = Presets.model("llama-3.1-8b");
  private static final GpuSpec H100 = Presets.gpu("h100-sxm");

  private static EngineConfig ideal(EngineProfile p) {
    return EngineConfig.of(LLAMA_8B, H100, p).withEfficiency(1, 1, 0, 0);
  }

  @Test
  void profilesAreFoundByIdAndUnknownOnesNameTheKnown() {
    assertThat(EngineProfile.of(" SGLang ")).isSameAs(EngineProfile.SGLANG);
    assertThat(EngineProfile.of("trt-llm")).isSameAs(EngineProfile.TRT_LLM);
    assertThat(EngineProfile.all()).first().isSameAs(EngineProfile.VLLM);
    assertThatThrownBy(() -> EngineProfile.of("tgi"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown engine 'tgi'; profiles: vllm, sglang, trt-llm, lmdeploy");
    assertThat(EngineProfile.of("LMDeploy")).isSameAs(EngineProfile.LMDEPLOY);
    assertThat(EngineConfig.of(LLAMA_8B, H100).profile()).isSameAs(EngineProfile.VLLM);
  }

  @Test
  void vllmLimitsFollowTheGpuAsItsDefaultsDo() {
    // >= 70 GiB and not an A100: 1,024 sequences and 8,192 tokens; otherwise 256 and 2,048
    for (String big : List.of("h100-sxm", "h200", "mi300x", "h100-pcie")) {
      EngineConfig c = EngineConfig.of(LLAMA_8B, Presets.gpu(big));
      assertThat(c.maxNumSeqs()).as(big).isEqualTo(1024);
      assertThat(c.maxBatchedTokens()).as(big).isEqualTo(8192);
    }
    for (String small : List.of("a100-80gb", "a100-40gb", "l40s", "l4")) {
      EngineConfig c = EngineConfig.of(LLAMA_8B, Presets.gpu(small));
      assertThat(c.maxNumSeqs()).as(small).isEqualTo(256);
      assertThat(c.maxBatchedTokens()).as(small).isEqualTo(2048);
    }
    // SGLang chunks at 2,048 on small GPUs too; TensorRT-LLM's limits do not depend on the GPU
    assertThat(EngineConfig.of(LLAMA_8B, Presets.gpu("l4"), EngineProfile.SGLANG).maxBatchedTokens())
        .isEqualTo(2048);
    assertThat(EngineConfig.of(LLAMA_8B, Presets.gpu("l4"), EngineProfile.TRT_LLM).maxNumSeqs())
        .isEqualTo(2048);
  }

  @Test
  void withProfileTakesTheProfilesLimitsAndFittedOverheads() {
    EngineConfig c = EngineConfig.of(LLAMA_8B, H100).withProfile(EngineProfile.TRT_LLM);
    assertThat(c.profile()).isSameAs(EngineProfile.TRT_LLM);
    assertThat(c.maxNumSeqs()).isEqualTo(2048);
    assertThat(c.iterationOverheadNanos()).isEqualTo(Calibration.TRT_LLM_ITERATION_NANOS);
    assertThat(c.perSequenceOverheadNanos()).isEqualTo(Calibration.TRT_LLM_PER_SEQUENCE_NANOS);
    EngineProfile p = EngineProfile.SGLANG.withOverheads(1_000, 2_000);
    assertThat(p.iterationOverheadNanos()).isEqualTo(1_000);
    assertThat(p.perSequenceNanos()).isEqualTo(2_000);
    assertThat(p.graphMaxBatch()).isEqualTo(160);
  }

  @Test
  void cudaGraphsCoverWhatEachEngineCaptures() {
    // vLLM V1's piecewise graphs: any batch of up to 512 tokens, prefill included
    assertThat(EngineProfile.VLLM.graphed(512, 3, 2)).isTrue();
    assertThat(EngineProfile.VLLM.graphed(513, 513, 513)).isFalse();
    // SGLang: decode-only batches of up to 160
    assertThat(EngineProfile.SGLANG.graphed(160, 160, 160)).isTrue();
    assertThat(EngineProfile.SGLANG.graphed(161, 161, 161)).isFalse();
    assertThat(EngineProfile.SGLANG.graphed(10, 1, 0)).isFalse();
    // TensorRT-LLM: generation batches up to 2,048
    assertThat(EngineProfile.TRT_LLM.graphed(2048, 2048, 2048)).isTrue();
    assertThat(EngineProfile.TRT_LLM.graphed(100, 2, 1)).isFalse();
    // An eager decode of 161 sequences on SGLang pays 32 layers × 40 µs instead of one replay
    Roofline sglang = new Roofline(ideal(EngineProfile.SGLANG));
    assertThat(sglang.cost(161, 161 * 101.0, 161 * 100L, 161, 161, 161).launchNanos())
        .isEqualTo(1_280_000L);
    assertThat(sglang.cost(160, 160 * 101.0, 160 * 100L, 160, 160, 160).launchNanos())
        .isEqualTo(20_000L);
  }

  @Test
  void interconnectsSetTheAllReduceLatency() {
    assertThat(H100.allReduceLatencyNanos()).isEqualTo(5_000L);
    assertThat(Presets.gpu("mi300x").allReduceLatencyNanos()).isEqualTo(5_000L);
    assertThat(Presets.gpu("l40s").allReduceLatencyNanos()).isEqualTo(20_000L);
    assertThat(EngineConfig.of(LLAMA_8B, Presets.gpu("l4")).allReduceLatencyNanos()).isEqualTo(20_000L);
  }

  /** Every iteration's prefill and decode counts. */
  private static List<BatchEngine.Iteration> run(BatchEngine e) {
    List<BatchEngine.Iteration> out = new ArrayList<>();
    while (e.hasWork()) {
      out.add(e.step());
    }
    return out;
  }

  @Test
  void sglangPrefillsANewPromptAloneWhileVllmMixesItWithTheDecodes() {
    for (EngineProfile p : List.of(EngineProfile.VLLM, EngineProfile.SGLANG)) {
      BatchEngine e = new BatchEngine(ideal(p), (id, index, at) -> {});
      e.submit(1, 100, 5, 0);
      e.step(); // 1's prefill
      e.submit(2, 100, 2, e.lastEndNanos()); // arrives while 1 decodes
      BatchEngine.Iteration next = e.step();
      if (p == EngineProfile.VLLM) {
        // one iteration: 1's decode and 2's prefill side by side
        assertThat(next.decodeSequences()).isEqualTo(1);
        assertThat(next.prefillSequences()).isEqualTo(1);
        assertThat(next.tokens()).isEqualTo(101);
      } else {
        // prefill-first: 2's prompt alone, 1 waits an iteration
        assertThat(next.decodeSequences()).isZero();
        assertThat(next.prefillSequences()).isEqualTo(1);
        assertThat(next.tokens()).isEqualTo(100);
        BatchEngine.Iteration decode = e.step();
        assertThat(decode.decodeSequences()).isEqualTo(2);
        assertThat(decode.prefillSequences()).isZero();
      }
    }
  }

  @Test
  void trtLlmReservesTheWholeRequestAtAdmissionAndNeverPreempts() {
    // 10 blocks of 16 tokens; two requests of 64 + 40 tokens need 7 blocks each by their end
    for (EngineProfile p : List.of(EngineProfile.VLLM, EngineProfile.TRT_LLM)) {
      double weights = 16_060_522_496.0;
      double kvBytes = 10 * 16 * 131_072.0 + 1_000;
      EngineConfig c = ideal(p).withMemory((weights + kvBytes) / H100.memoryBytes(), 0);
      BatchEngine e = new BatchEngine(c, (id, index, at) -> {});
      e.submit(1, 64, 40, 0);
      e.submit(2, 64, 40, 0);
      BatchEngine.Iteration first = e.step();
      run(e);
      if (p == EngineProfile.VLLM) {
        // both admitted (4 blocks each), then they outgrow the cache: one is preempted
        assertThat(first.prefillSequences()).isEqualTo(2);
        assertThat(e.preemptions()).isEqualTo(1);
      } else {
        // 1 takes its 7 blocks at once; 2 waits until they are free
        assertThat(first.prefillSequences()).isEqualTo(1);
        assertThat(first.usedBlocks()).isEqualTo(7);
        assertThat(first.waiting()).isEqualTo(1);
        assertThat(e.preemptions()).isZero();
      }
      assertThat(e.freeBlocks()).isEqualTo(10);
    }
  }

  @Test
  void lmdeployTakesHalfTheMemoryIn128TokenBlocksAnd64Slots() {
    // TurboMind 0.1: cache_max_entry_count 0.5 of the whole 80 GiB = 40 GiB, blocks of
    // 128 × 131,072 B = 16 MiB: 2,560 blocks, 327,680 tokens (vLLM's rule leaves 442,704 tokens)
    GpuSpec a100 = Presets.gpu("a100-80gb");
    EngineConfig c = EngineConfig.of(LLAMA_8B, a100, EngineProfile.LMDEPLOY);
    assertThat(c.blockTokens()).isEqualTo(128);
    assertThat(c.maxNumSeqs()).isEqualTo(64);
    assertThat(c.maxBatchedTokens()).isEqualTo(262_144);
    assertThat(new Roofline(c).kvCapacityBlocks()).isEqualTo(2_560);
    assertThat(new Roofline(c).kvCapacityTokens()).isEqualTo(327_680);
    assertThat(new Roofline(EngineConfig.of(LLAMA_8B, a100)).kvCapacityTokens()).isEqualTo(442_704);
    // it ignores gpu_memory_utilization; where the weights and reserve leave less than half the
    // memory, the KV cache gets what they leave: 80 GiB − 16.06 GB − 48 GiB in 16 MiB blocks
    EngineConfig tight = c.withMemory(0.5, 48L << 30);
    double left = a100.memoryBytes() - 16_060_522_496.0 - (48L << 30);
    assertThat(new Roofline(tight).kvCapacityBlocks())
        .isEqualTo((long) Math.floor(left / (128 * 131_072.0)))
        .isEqualTo(1_090);
    assertThat(new Roofline(c.withMemory(0.5, 0)).kvCapacityBlocks()).isEqualTo(2_560);
    // no prefix caching in that version, whatever is asked; switching back keeps it off
    assertThat(c.prefixCaching()).isFalse();
    assertThat(c.withPrefixCaching(true).prefixCaching()).isFalse();
    assertThat(EngineConfig.of(LLAMA_8B, a100).withProfile(EngineProfile.LMDEPLOY).blockTokens())
        .isEqualTo(128);
  }

  @Test
  void lmdeployLaunchesEveryKernelEagerly() {
    // no CUDA graphs in TurboMind 0.1: even a decode of one sequence pays 32 layers × 40 µs
    assertThat(EngineProfile.LMDEPLOY.graphed(1, 1, 1)).isFalse();
    Roofline r = new Roofline(ideal(EngineProfile.LMDEPLOY));
    assertThat(r.cost(1, 101.0, 100L, 1, 1, 1).launchNanos()).isEqualTo(1_280_000L);
  }

  @Test
  void lmdeployAdmitsOnTheContextItNeedsNowAndPrefillsEveryPromptWhole() {
    // The same 50,332,648 B of KV cache: 3 blocks of 128 tokens for LMDeploy, 24 of 16 for
    // TensorRT-LLM. Three requests of 100 + 100 tokens arrive at once.
    double weights = 16_060_522_496.0;
    double kvBytes = 3 * 128 * 131_072.0 + 1_000;
    for (EngineProfile p : List.of(EngineProfile.LMDEPLOY, EngineProfile.TRT_LLM)) {
      EngineConfig c = ideal(p).withMemory(1, (long) (H100.memoryBytes() - weights - kvBytes));
      BatchEngine e = new BatchEngine(c, (id, index, at) -> {});
      for (long id = 1; id <= 3; id++) {
        e.submit(id, 100, 100, 0);
      }
      BatchEngine.Iteration first = e.step();
      run(e);
      if (p == EngineProfile.LMDEPLOY) {
        // each needs 1 block for its 100-token prompt now: all three admitted and prefilled in
        // the first iteration; at 129 tokens each needs a second block, so the newest is preempted
        assertThat(first.prefillSequences()).isEqualTo(3);
        assertThat(first.tokens()).isEqualTo(300);
        assertThat(first.usedBlocks()).isEqualTo(3);
        assertThat(e.preemptions()).isPositive();
        assertThat(e.freeBlocks()).isEqualTo(3);
      } else {
        // each reserves its 200 tokens, 13 blocks, at admission: one runs, two queue behind it
        assertThat(first.prefillSequences()).isEqualTo(1);
        assertThat(first.usedBlocks()).isEqualTo(13);
        assertThat(first.waiting()).isEqualTo(2);
        assertThat(e.preemptions()).isZero();
        assertThat(e.freeBlocks()).isEqualTo(24);
      }
    }
    // No chunking: four 3,000-token prompts on an A100 prefill in one iteration of 12,000 tokens,
    // where vLLM's 2,048-token budget on that GPU chunks them
    GpuSpec a100 = Presets.gpu("a100-80gb");
    for (EngineProfile p : List.of(EngineProfile.LMDEPLOY, EngineProfile.VLLM)) {
      BatchEngine e = new BatchEngine(EngineConfig.of(LLAMA_8B, a100, p), (id, index, at) -> {});
      for (long id = 1; id <= 4; id++) {
        e.submit(id, 3_000, 2, 0);
      }
      assertThat(e.step().tokens()).as(p.id()).isEqualTo(p == EngineProfile.LMDEPLOY ? 12_000 : 2_048);
    }
  }

  @Test
  void costTotalsAddUpToTheIterationsTime() {
    BatchEngine e = new BatchEngine(EngineConfig.of(LLAMA_8B, H100), (id, index, at) -> {});
    e.submit(1, 100, 3, 0);
    e.submit(2, 900, 3, 0);
    long busy = 0;
    while (e.hasWork()) {
      BatchEngine.Iteration it = e.step();
      busy += it.durationNanos();
    }
    CostTotals t = e.costs();
    assertThat(t.iterations()).isEqualTo(3);
    assertThat(t.sequences()).isEqualTo(6); // both sequences in each of the three iterations
    assertThat(t.totalNanos()).isEqualTo((double) busy);
    assertThat(t.iterationOverheadNanos()).isEqualTo(3.0 * Calibration.VLLM_ITERATION_NANOS);
    assertThat(t.sequenceOverheadNanos()).isEqualTo(6.0 * Calibration.VLLM_PER_SEQUENCE_NANOS);
    // the 1,000-token prefill is compute-bound; the two decodes memory-bound
    assertThat(t.computeBoundNanos()).isPositive();
    assertThat(t.memoryBoundNanos()).isPositive();
    assertThat(CostTotals.ZERO.totalNanos()).isZero();
  }
}
