package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Disaggregated prefill and decode, hand-computed on the figures of {@link BatchEngineTest}'s
 * first test (Llama 3.1 8B on one H100, ideal efficiency): a 100-token prompt prefills in
 * 4,594,124 + 306 (sampling) + 20,000 (graph launch) = 4,614,430 ns, and a decode step with 100
 * tokens in context takes 4,484,504 + 306 + 20,000 = 4,504,810 ns. Llama 3.1 8B's KV cache in
 * BF16: 2 × 32 layers × 8 KV heads × 128 × 2 B = 131,072 B per token.
 */
class DisaggregatedEngineTest {
  private static final EngineConfig IDEAL =
      EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm")).withEfficiency(1, 1, 0, 0);
  private static final long PREFILL_100 = 4_594_124L + 306 + 20_000;
  private static final long DECODE_AT_100 = 4_484_504L + 306 + 20_000;
  /** 10 GB/s: 100 tokens × 131,072 B / 1e10 B/s = 1,310,720 ns. */
  private static final double TEN_GB = 10e9;

  private static final class Tokens implements BatchEngine.Listener {
    final Map<Long, List<Long>> times = new HashMap<>();

    @Override
    public void token(long id, int index, long atNanos) {
      List<Long> t = times.computeIfAbsent(id, k -> new ArrayList<>());
      assertThat(index).isEqualTo(t.size());
      t.add(atNanos);
    }
  }

  /** Runs every event in time order, as the virtual endpoint does. */
  private static void runAll(DisaggregatedEngine e) {
    while (e.hasWork()) {
      long t = e.nextEventNanos();
      e.finishDue(t);
      e.startDue(t);
    }
  }

  @Test
  void transferTimeIsTheKvBytesOverTheBandwidth() {
    var pools = new DisaggregatedEngine.Pools(IDEAL, IDEAL, TEN_GB, "test");
    assertThat(pools.transferBytesPerToken()).isEqualTo(131_072.0);
    DisaggregatedEngine e = new DisaggregatedEngine(pools, new Tokens());
    assertThat(e.transferNanos(100)).isEqualTo(1_310_720L);
    // 8,000 tokens = 1,048,576,000 B: 104.8576 ms
    assertThat(e.transferNanos(8_000)).isEqualTo(104_857_600L);
    // TP 2 on the decode side halves each GPU's shard, but the prefill GPU still sends all of it
    var wider = new DisaggregatedEngine.Pools(IDEAL, IDEAL.withTensorParallel(2), TEN_GB, "test");
    assertThat(wider.transferBytesPerToken()).isEqualTo(131_072.0);
  }

  @Test
  void oneRequestTtftIsPrefillPlusTransferExactly() {
    Tokens tokens = new Tokens();
    DisaggregatedEngine e =
        new DisaggregatedEngine(new DisaggregatedEngine.Pools(IDEAL, IDEAL, TEN_GB, "test"), tokens);
    e.submit(1, 100, 3, 0);
    runAll(e);
    List<Long> t = tokens.times.get(1L);
    assertThat(t).hasSize(3);
    assertThat(t.get(0)).isEqualTo(PREFILL_100 + 1_310_720L); // 5,925,150 ns
    // the decode instance's first step computes token 0's KV (100 tokens in context) and emits 1
    assertThat(t.get(1) - t.get(0)).isEqualTo(DECODE_AT_100);
    assertThat(e.handoffs()).isEqualTo(1);
    assertThat(e.meanHandoffWaitNanos()).isZero();
    assertThat(e.maxHandoffQueue()).isZero();
    assertThat(e.meanTransferNanos()).isEqualTo(1_310_720.0);
    // both pools gave every block back
    assertThat(e.prefill().usedBlocks()).isZero();
    assertThat(e.decode().usedBlocks()).isZero();
  }

  @Test
  void thePrefillPoolHoldsTheKvUntilTheTransferEnds() {
    Tokens tokens = new Tokens();
    DisaggregatedEngine e =
        new DisaggregatedEngine(new DisaggregatedEngine.Pools(IDEAL, IDEAL, TEN_GB, "test"), tokens);
    e.submit(1, 100, 3, 0);
    e.startDue(0); // the prefill iteration starts
    e.finishDue(PREFILL_100);
    e.startDue(PREFILL_100); // the decode pool takes the handoff: 7 blocks of 16 for 101 tokens
    assertThat(e.prefill().usedBlocks()).isEqualTo(7); // 100 tokens in blocks of 16
    assertThat(e.decode().usedBlocks()).isEqualTo(7);
    assertThat(e.nextEventNanos()).isEqualTo(PREFILL_100 + 1_310_720L);
    e.finishDue(PREFILL_100 + 1_310_720L);
    assertThat(e.prefill().usedBlocks()).isZero();
    assertThat(tokens.times.get(1L)).containsExactly(PREFILL_100 + 1_310_720L);
  }

  @Test
  void aFullDecodePoolQueuesTheHandoff() {
    Tokens tokens = new Tokens();
    // the decode instance runs one sequence at a time
    EngineConfig oneSeq = IDEAL.withLimits(1, IDEAL.maxBatchedTokens());
    DisaggregatedEngine e =
        new DisaggregatedEngine(new DisaggregatedEngine.Pools(IDEAL, oneSeq, TEN_GB, "test"), tokens);
    e.submit(1, 100, 4, 0);
    e.submit(2, 100, 4, 0);
    runAll(e);
    List<Long> first = tokens.times.get(1L);
    List<Long> second = tokens.times.get(2L);
    assertThat(first).hasSize(4);
    assertThat(second).hasSize(4);
    // both prompts prefill together (200 tokens fit the budget); the second's KV waits in the
    // prefill pool until the first's last decode step has ended, then moves: 1,310,720 ns
    assertThat(second.get(0)).isEqualTo(first.get(3) + 1_310_720L);
    assertThat(e.meanHandoffWaitNanos()).isEqualTo((first.get(3) - (first.get(0) - 1_310_720L)) / 2.0);
    assertThat(e.maxHandoffQueue()).isEqualTo(1); // the second, while the first decodes
  }

  @Test
  void decodeStepsCarryNoPrefill() {
    Tokens tokens = new Tokens();
    DisaggregatedEngine e =
        new DisaggregatedEngine(new DisaggregatedEngine.Pools(IDEAL, IDEAL, TEN_GB, "test"), tokens);
    e.submit(1, 100, 50, 0);
    // a long prompt arrives while request 1 decodes; in one engine it would share its steps
    e.submit(2, 4_000, 2, 20_000_000L);
    runAll(e);
    List<Long> t = tokens.times.get(1L);
    for (int i = 2; i < t.size(); i++) {
      // every gap is one decode step of one or two sequences: never a 4,000-token prefill (> 50 ms)
      assertThat(t.get(i) - t.get(i - 1)).isLessThan(2 * DECODE_AT_100);
    }
  }

  @Test
  void chunkedPrefillIsOffInThePrefillPool() {
    Tokens tokens = new Tokens();
    EngineConfig small = IDEAL.withLimits(IDEAL.maxNumSeqs(), 512);
    DisaggregatedEngine e =
        new DisaggregatedEngine(new DisaggregatedEngine.Pools(small, IDEAL, TEN_GB, "test"), tokens);
    e.submit(1, 2_000, 2, 0);
    e.submit(2, 100, 2, 0);
    e.startDue(0);
    // the 2,000-token prompt runs whole, alone, over the 512-token budget; the 100-token one waits
    assertThat(e.prefill().waiting()).isEqualTo(1);
    assertThat(e.nextEventNanos()).isGreaterThan(PREFILL_100);
    runAll(e);
    assertThat(e.prefill().iterations()).isEqualTo(2);
    assertThat(tokens.times.get(2L).get(0)).isGreaterThan(tokens.times.get(1L).get(0));
  }

  @Test
  void aOneTokenAnswerNeverLeavesThePrefillPool() {
    Tokens tokens = new Tokens();
    DisaggregatedEngine e =
        new DisaggregatedEngine(new DisaggregatedEngine.Pools(IDEAL, IDEAL, TEN_GB, "test"), tokens);
    e.submit(1, 100, 1, 0);
    runAll(e);
    assertThat(tokens.times.get(1L)).containsExactly(PREFILL_100);
    assertThat(e.handoffs()).isZero();
    assertThat(e.prefill().usedBlocks()).isZero();
  }

  @Test
  void theDefaultLinkIsNvlinkInsideANodeAndTheNetworkCardAcrossNodes() {
    EngineConfig tp4 = IDEAL.withTensorParallel(4);
    var inNode = DisaggregatedEngine.Pools.of(tp4, tp4, null);
    assertThat(inNode.transferBytesPerSecond()).isEqualTo(Presets.gpu("h100-sxm").interconnectBytesPerSecond());
    var across = DisaggregatedEngine.Pools.of(tp4, IDEAL.withTensorParallel(8), null);
    assertThat(across.transferBytesPerSecond()).isEqualTo(50e9);
    assertThat(across.link()).isEqualTo("400 Gb/s RDMA");
  }
}
