package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BatchEngineTest {
  private static final ModelSpec LLAMA_8B = Presets.model("llama-3.1-8b");
  private static final GpuSpec H100 = Presets.gpu("h100-sxm");
  private static final EngineConfig IDEAL = EngineConfig.of(LLAMA_8B, H100).withEfficiency(1, 1, 0, 0);

  /** Every token's emission time, per sequence. */
  private static final class Tokens implements BatchEngine.Listener {
    final Map<Long, List<Long>> times = new HashMap<>();
    final List<Long> preempted = new ArrayList<>();

    @Override
    public void token(long id, int index, long atNanos) {
      List<Long> t = times.computeIfAbsent(id, k -> new ArrayList<>());
      assertThat(index).isEqualTo(t.size());
      t.add(atNanos);
    }

    @Override
    public void preempted(long id, long atNanos) {
      preempted.add(id);
    }

    long itl(long id, int index) {
      return times.get(id).get(index) - times.get(id).get(index - 1);
    }
  }

  @Test
  void oneRequestPrefillsThenDecodesOneTokenPerIteration() {
    Tokens tokens = new Tokens();
    BatchEngine e = new BatchEngine(IDEAL, tokens);
    e.submit(1, 100, 3, 1_000);
    BatchEngine.Iteration prefill = e.step();
    // starts at the arrival; 100 prompt tokens, memory-bound: m = (15,009,849,344 + 100 × 131,072)
    // B / 3.35e12 = 4,484,465 ns, c = 1.5036e12 FLOP / (989.4 × 0.803 TFLOP/s) = 1,892,580 ns,
    // m × (1 + (c/m)³)^(1/3) = 4,594,124 ns; + sampling the first token (306 ns) + one graph
    // launch (20 µs)
    assertThat(prefill.startNanos()).isEqualTo(1_000);
    assertThat(prefill.tokens()).isEqualTo(100);
    assertThat(prefill.prefillSequences()).isEqualTo(1);
    assertThat(prefill.durationNanos()).isEqualTo(4_594_124L + 306 + 20_000);
    assertThat(tokens.times.get(1L)).containsExactly(prefill.endNanos());
    BatchEngine.Iteration d1 = e.step();
    assertThat(d1.startNanos()).isEqualTo(prefill.endNanos());
    assertThat(d1.decodeSequences()).isEqualTo(1);
    // one token with 100 in context: 4.485 ms + sampling + the graph launch
    assertThat(d1.durationNanos()).isEqualTo(4_484_504L + 306 + 20_000);
    e.step();
    assertThat(tokens.times.get(1L)).hasSize(3);
    assertThat(tokens.itl(1, 2)).isEqualTo(4_484_543L + 306 + 20_000); // one more token of context
    assertThat(e.hasWork()).isFalse();
    assertThat(e.freeBlocks()).isEqualTo(e.roofline().kvCapacityBlocks());
  }

  @Test
  void itlRisesWithTheNumberOfRunningSequences() {
    long previous = 0;
    for (int users : new int[] {1, 16, 64, 256}) {
      Tokens tokens = new Tokens();
      // a budget that prefills every prompt in the first iteration: then all decode together
      BatchEngine e = new BatchEngine(IDEAL.withLimits(256, 256 * 1_000), tokens);
      for (int i = 0; i < users; i++) {
        e.submit(i, 1_000, 20, 0);
      }
      e.advanceTo(Long.MAX_VALUE);
      long itl = tokens.itl(0, 19); // every sequence decodes together by then
      assertThat(itl).isGreaterThan(previous);
      previous = itl;
    }
    // 256 sequences of ~1,019 tokens: m = (15.01 GB + 256 × 1,019 × 131,072 B) / 3.35 TB/s =
    // 14.69 ms, c = 5.01 ms, m × (1 + (c/m)³)^(1/3) = 14.88 ms, + 256 samplers' logits + one graph
    // launch ≈ 14.98 ms
    assertThat(previous).isBetween(14_900_000L, 15_100_000L);
  }

  @Test
  void chunkedPrefillSplitsALongPromptUnderTheTokenBudget() {
    Tokens tokens = new Tokens();
    BatchEngine e = new BatchEngine(IDEAL.withLimits(256, 2048), tokens);
    e.submit(1, 5_000, 2, 0);
    assertThat(e.step().tokens()).isEqualTo(2048);
    assertThat(e.step().tokens()).isEqualTo(2048);
    assertThat(tokens.times).isEmpty();
    BatchEngine.Iteration last = e.step();
    assertThat(last.tokens()).isEqualTo(904);
    assertThat(tokens.times.get(1L)).containsExactly(last.endNanos());
  }

  @Test
  void decodeGoesFirstAndANewPromptTakesWhatIsLeftOfTheBudget() {
    Tokens tokens = new Tokens();
    BatchEngine e = new BatchEngine(IDEAL.withLimits(256, 512), tokens);
    e.submit(1, 10, 10, 0);
    e.step(); // prefill of 1
    e.submit(2, 2_000, 5, e.lastEndNanos());
    BatchEngine.Iteration mixed = e.step();
    assertThat(mixed.tokens()).isEqualTo(512);
    assertThat(mixed.decodeSequences()).isEqualTo(1);
    assertThat(mixed.prefillSequences()).isEqualTo(1);
    assertThat(tokens.times.get(1L)).hasSize(2); // 1 kept decoding while 2 prefilled
  }

  @Test
  void maxNumSeqsQueuesTheRest() {
    Tokens tokens = new Tokens();
    BatchEngine e = new BatchEngine(IDEAL.withLimits(2, 8192), tokens);
    e.submit(1, 10, 4, 0);
    e.submit(2, 10, 4, 0);
    e.submit(3, 10, 4, 0);
    assertThat(e.step().prefillSequences()).isEqualTo(2);
    assertThat(e.running()).isEqualTo(2);
    assertThat(e.waiting()).isEqualTo(1);
    e.advanceTo(Long.MAX_VALUE);
    // 3 starts in the iteration after 1 and 2 emitted their last token
    assertThat(tokens.times.get(3L).get(0)).isGreaterThan(tokens.times.get(1L).get(3));
  }

  /** A deployment whose KV cache holds exactly {@code blocks} blocks of 16 tokens. */
  private static EngineConfig withBlocks(int blocks) {
    double weights = 16_060_522_496.0;
    double kvBytes = blocks * 16 * 131_072.0 + 1_000; // a little over, floored away
    double memory = H100.memoryBytes();
    return IDEAL.withMemory((weights + kvBytes) / memory, 0);
  }

  @Test
  void admissionQueueWhenTheKvCacheIsFull() {
    Tokens tokens = new Tokens();
    BatchEngine e = new BatchEngine(withBlocks(10), tokens);
    assertThat(e.roofline().kvCapacityTokens()).isEqualTo(160);
    e.submit(1, 100, 20, 0); // 100 tokens: 7 blocks, growing to 8
    e.submit(2, 100, 20, 0); // needs 7 more: waits
    e.step();
    assertThat(e.running()).isEqualTo(1);
    assertThat(e.waiting()).isEqualTo(1);
    e.advanceTo(Long.MAX_VALUE);
    assertThat(tokens.times.get(1L)).hasSize(20);
    assertThat(tokens.times.get(2L)).hasSize(20);
    assertThat(tokens.times.get(2L).get(0)).isGreaterThan(tokens.times.get(1L).get(19));
    assertThat(tokens.preempted).isEmpty();
  }

  @Test
  void admissionTakesTheLastFreeBlockButNoMore() {
    BatchEngine e = new BatchEngine(withBlocks(10), (id, index, at) -> {});
    e.submit(1, 80, 1, 0); // 5 blocks
    e.submit(2, 80, 1, 0); // the other 5: fits exactly
    e.submit(3, 1, 1, 0); // 1 block more: waits
    BatchEngine.Iteration first = e.step();
    assertThat(first.prefillSequences()).isEqualTo(2);
    assertThat(first.usedBlocks()).isEqualTo(10);
    assertThat(first.waiting()).isEqualTo(1);
    e.advanceTo(Long.MAX_VALUE);
    assertThat(e.hasWork()).isFalse();
    assertThat(e.freeBlocks()).isEqualTo(10);
  }

  @Test
  void runningSequencesThatOutgrowTheCacheArePreemptedAndRecomputed() {
    Tokens tokens = new Tokens();
    BatchEngine e = new BatchEngine(withBlocks(10), tokens);
    e.submit(1, 60, 40, 0); // 4 blocks now, 7 at the end
    e.submit(2, 60, 40, 0); // both admitted: 8 of 10 blocks; they outgrow 10 at 80 tokens each
    e.advanceTo(Long.MAX_VALUE);
    assertThat(tokens.preempted).containsExactly(2L);
    assertThat(e.preemptions()).isEqualTo(1);
    assertThat(tokens.times.get(1L)).hasSize(40);
    assertThat(tokens.times.get(2L)).hasSize(40);
    // 2 stalls while 1 finishes, then recomputes 60 + its generated tokens and goes on
    long longestGap = 0;
    for (int i = 1; i < 40; i++) {
      longestGap = Math.max(longestGap, tokens.itl(2, i));
    }
    assertThat(longestGap).isGreaterThan(10 * tokens.itl(1, 5));
    assertThat(e.freeBlocks()).isEqualTo(10);
  }

  @Test
  void cancelFreesBlocksAndUnknownIdsAreIgnored() {
    BatchEngine e = new BatchEngine(IDEAL, (id, index, at) -> {});
    e.submit(7, 1_000, 100, 0);
    e.step();
    assertThat(e.freeBlocks()).isLessThan(e.roofline().kvCapacityBlocks());
    assertThat(e.cancel(7)).isTrue();
    assertThat(e.cancel(7)).isFalse();
    assertThat(e.hasWork()).isFalse();
    assertThat(e.freeBlocks()).isEqualTo(e.roofline().kvCapacityBlocks());
  }

  @Test
  void idleEngineStartsAtTheNextArrivalAndRejectsImpossibleRequests() {
    Tokens tokens = new Tokens();
    BatchEngine e = new BatchEngine(IDEAL, tokens);
    e.submit(1, 10, 1, 0);
    e.advanceTo(Long.MAX_VALUE);
    e.submit(2, 10, 1, 1_000_000_000L);
    e.advanceTo(999_999_999L);
    assertThat(tokens.times).doesNotContainKey(2L);
    e.advanceTo(1_000_000_000L);
    assertThat(tokens.times.get(2L).get(0)).isGreaterThan(1_000_000_000L);
    assertThatThrownBy(() -> e.submit(3, 442_704, 1, 0)).hasMessageContaining("exceed the KV cache");
    e.submit(4, 10, 1, 2_000_000_000L);
    assertThatThrownBy(() -> e.submit(4, 10, 1, 0)).hasMessageContaining("already");
    e.advanceTo(Long.MAX_VALUE);
    assertThatThrownBy(e::step).isInstanceOf(IllegalStateException.class);
  }
}
