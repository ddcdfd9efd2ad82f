package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Prefix caching in the engine, with hand-computed roofline figures (Llama 3.1 8B BF16 on one
 * H100 SXM at peak: 989.4 TFLOP/s, 3.35 TB/s, no overhead; attention 4 × 32 × 32 × 128 = 524,288
 * FLOPs per attended pair; KV 131,072 B per token).
 */
class PrefixCacheTest {
  private static final GpuSpec H100 = Presets.gpu("h100-sxm");
  private static final EngineConfig IDEAL =
      EngineConfig.of(Presets.model("llama-3.1-8b"), H100).withEfficiency(1, 1, 0, 0);

  /** Token 0's time per sequence. */
  private static final class FirstTokens implements BatchEngine.Listener {
    final Map<Long, Long> first = new HashMap<>();

    @Override
    public void token(long id, int index, long atNanos) {
      if (index == 0) {
        first.put(id, atNanos);
      }
    }
  }

  /** A prompt of {@code shared} tokens common to every caller, then {@code own} tokens unique to {@code key}. */
  private static BlockHashes prompt(int shared, int own, int key) {
    int[] ids = new int[shared + own];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i < shared ? i : key * 1_000_000 + i;
    }
    return BlockHashes.ofTokens(ids, ids.length, 16);
  }

  /** KV cache of exactly {@code blocks} blocks (as in BatchEngineTest). */
  private static EngineConfig withBlocks(int blocks) {
    double weights = 16_060_522_496.0;
    double kvBytes = blocks * 16 * 131_072.0 + 1_000;
    return IDEAL.withMemory((weights + kvBytes) / H100.memoryBytes(), 0);
  }

  private static long ttft(BatchEngine e, FirstTokens t, long id, int prompt, BlockHashes h) {
    long arrival = Math.max(0, e.lastEndNanos()); // the engine is idle between these calls
    e.submit(id, prompt, 1, arrival, h);
    e.advanceTo(Long.MAX_VALUE);
    return t.first.get(id) - arrival;
  }

  @Test
  void aSharedSystemPromptIsPrefilledOnce() {
    FirstTokens t = new FirstTokens();
    BatchEngine e = new BatchEngine(IDEAL, t);
    // A: 1,024-token system prompt + 256 of its own. Compute-bound: FLOPs = 2 × (8,030,261,248 −
    // 525,336,576 embedding) × 1,280 + 524,288 × (1,280 × 1,281 / 2) → / (989.4e12 × the H100's
    // achievable share 0.803) = c = 24.723387 ms; the weights and 1,280 tokens of KV, m = 4.530633
    // ms, through the smooth roofline c × (1 + (m/c)³)^(1/3) = 24.773999 ms; + sampling (306 ns) +
    // eager launches (1,280 tokens > vLLM's 512-token graphs: 32 × 40 µs)
    long coldA = 24_773_999L + 306 + 1_280_000;
    assertThat(ttft(e, t, 1, 1_280, prompt(1_024, 256, 1))).isEqualTo(coldA);
    // B: the same system prompt, 256 tokens of its own: its 64 shared blocks hit, 256 tokens are
    // prefilled at positions 1,024.. (pairs 256 × 1,024 + 256 × 257 / 2 = 295,040): 3.997e12
    // FLOPs = 5.031173 ms of compute; the weights plus 1,280 tokens of KV, 15,177,621,504 B, take
    // 4.530633 ms to read: near the ridge, (c³ + m³)^(1/3) = 6.040022 ms; 256 tokens run as a
    // graph (20 µs), + sampling.
    assertThat(ttft(e, t, 2, 1_280, prompt(1_024, 256, 2))).isEqualTo(6_040_022L + 306 + 20_000);
    assertThat(e.admittedPromptTokens()).isEqualTo(2_560);
    assertThat(e.cachedPromptTokens()).isEqualTo(1_024);
    // 80 blocks of A + B's 16 own, all evictable now
    assertThat(e.cachedBlocks()).isEqualTo(96);
    assertThat(e.freeBlocks()).isEqualTo(e.roofline().kvCapacityBlocks());

    // Off: B pays the whole prefill again
    FirstTokens off = new FirstTokens();
    BatchEngine cold = new BatchEngine(IDEAL.withPrefixCaching(false), off);
    ttft(cold, off, 1, 1_280, prompt(1_024, 256, 1));
    assertThat(ttft(cold, off, 2, 1_280, prompt(1_024, 256, 2))).isEqualTo(coldA);
    assertThat(cold.cachedPromptTokens()).isZero();
    assertThat(cold.cachedBlocks()).isZero();
  }

  @Test
  void anIdenticalPromptStillComputesItsLastBlock() {
    FirstTokens t = new FirstTokens();
    BatchEngine e = new BatchEngine(IDEAL, t);
    ttft(e, t, 1, 640, prompt(640, 0, 0));
    // 40 blocks cached, but at most (640 − 1) / 16 = 39 hit: 16 tokens are prefilled after 624,
    // memory-bound: (15,009,849,344 + 640 × 131,072) / 3.35e12 = 4.505593 ms, the 0.309 ms of
    // compute adding 484 ns through the cube (4.506077 ms), + graph + sampling
    assertThat(ttft(e, t, 2, 640, prompt(640, 0, 0))).isEqualTo(4_506_077L + 20_000 + 306);
    assertThat(e.cachedPromptTokens()).isEqualTo(624);
  }

  @Test
  void sharedBlocksCountOnceAgainstTheCapacity() {
    for (boolean caching : new boolean[] {true, false}) {
      BatchEngine e = new BatchEngine(withBlocks(100).withPrefixCaching(caching), new FirstTokens());
      e.submit(1, 1_280, 10, 0, prompt(1_024, 256, 1));
      assertThat(e.step().usedBlocks()).isEqualTo(80);
      e.submit(2, 1_280, 10, e.lastEndNanos(), prompt(1_024, 256, 2));
      BatchEngine.Iteration both = e.step();
      if (caching) {
        // A grows to 81 blocks (token 1,281), B takes its 64 shared blocks and 16 of its own
        assertThat(both.usedBlocks()).isEqualTo(97);
        assertThat(e.running()).isEqualTo(2);
        assertThat(e.freeBlocks()).isEqualTo(3);
      } else {
        // B would need 80 more blocks: it waits in the admission queue
        assertThat(both.usedBlocks()).isEqualTo(81);
        assertThat(e.waiting()).isEqualTo(1);
      }
      e.advanceTo(Long.MAX_VALUE);
      assertThat(e.freeBlocks()).isEqualTo(100);
    }
  }

  @Test
  void unheldBlocksAreEvictedLeastRecentlyReleasedFirstPromptTailBeforeHead() {
    FirstTokens t = new FirstTokens();
    BatchEngine e = new BatchEngine(withBlocks(100), t);
    ttft(e, t, 1, 640, prompt(640, 0, 0)); // A: 40 blocks, then evictable
    assertThat(e.cachedBlocks()).isEqualTo(40);
    assertThat(e.freeBlocks()).isEqualTo(100);
    // C: 80 unique blocks: the 60 empty ones, then 20 of A's evicted, A's tail (39..20) first
    ttft(e, t, 2, 1_280, prompt(0, 1_280, 2));
    assertThat(e.evictions()).isEqualTo(20);
    assertThat(e.cachedBlocks()).isEqualTo(100);
    // A's prompt again: blocks 0..19 hit (320 tokens), 320 are prefilled after them, compute-bound:
    // 2 × 7,504,924,672 × 320 + 524,288 × (320 × 320 + 320 × 321 / 2) FLOPs at 989.4e12 × 0.803
    // = 6.147060 ms; with the 4.505593 ms of weights and KV, (c³ + m³)^(1/3) = 6.866448 ms, +
    // graph + sampling
    assertThat(ttft(e, t, 3, 640, prompt(640, 0, 0))).isEqualTo(6_866_448L + 20_000 + 306);
    assertThat(e.cachedPromptTokens()).isEqualTo(320);
    assertThat(e.freeBlocks()).isEqualTo(100);
  }

  @Test
  void preemptionReleasesCachedAndPrivateBlocksAlike() {
    BatchEngine e = new BatchEngine(withBlocks(10), new FirstTokens());
    e.submit(1, 64, 40, 0, prompt(64, 0, 1)); // 4 blocks, 7 at the end
    e.submit(2, 64, 40, 0, prompt(0, 64, 2)); // both grow past 10 blocks: 2 is preempted
    e.advanceTo(Long.MAX_VALUE);
    assertThat(e.preemptions()).isEqualTo(1);
    assertThat(e.admittedPromptTokens()).isEqualTo(128); // first admissions only
    assertThat(e.freeBlocks()).isEqualTo(10);
  }

  @Test
  void hashesMustUseTheEngineBlockSize() {
    BatchEngine e = new BatchEngine(IDEAL, new FirstTokens());
    assertThatThrownBy(() -> e.submit(1, 64, 1, 0, BlockHashes.ofTokens(new int[64], 64, 32)))
        .hasMessageContaining("blocks of 32");
  }

  @Test
  void chainHashesAgreeExactlyOnCommonLeadingBlocks() {
    BlockHashes a = prompt(40, 24, 1); // 4 full blocks; the third holds the boundary at 40
    BlockHashes b = prompt(40, 24, 2);
    assertThat(a.fullBlocks()).isEqualTo(4);
    assertThat(a.chainHash(0)).isEqualTo(b.chainHash(0));
    assertThat(a.chainHash(1)).isEqualTo(b.chainHash(1));
    assertThat(a.chainHash(2)).isNotEqualTo(b.chainHash(2));
    BlockHashes s1 = BlockHashes.sharedPrefix(7, 40, 1, 64, 16);
    BlockHashes s2 = BlockHashes.sharedPrefix(7, 40, 2, 100, 16);
    assertThat(s1.fullBlocks()).isEqualTo(4);
    assertThat(s1.chainHash(1)).isEqualTo(s2.chainHash(1));
    assertThat(s1.chainHash(2)).isNotEqualTo(s2.chainHash(2));
    assertThat(s1.chainHash(2)).isNotEqualTo(s1.chainHash(3));
  }
}
