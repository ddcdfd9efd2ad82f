package dev.tokenmeter.simulator.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Speculative decoding: tokens per step, the verify pass, the drafter's cost, the emission. */
class SpeculationTest {
  private static final ModelSpec LLAMA_8B = Presets.model("llama-3.1-8b");
  private static final GpuSpec H100 = Presets.gpu("h100-sxm");
  private static final EngineConfig IDEAL = EngineConfig.of(LLAMA_8B, H100).withEfficiency(1, 1, 0, 0);

  private static final class Times implements BatchEngine.Listener {
    final List<Long> at = new ArrayList<>();

    @Override
    public void token(long id, int index, long atNanos) {
      assertThat(index).isEqualTo(at.size());
      at.add(atNanos);
    }

    @Override
    public void preempted(long id, long atNanos) {}
  }

  @Test
  void tokensPerStepIsOnePlusTheAcceptedPrefix() {
    // 1 + 0.7 + 0.49 + 0.343
    assertThat(new Speculation(Speculation.Kind.EAGLE, 3, 0.7, null).tokensPerStep())
        .isCloseTo(2.533, within(1e-12));
    assertThat(new Speculation(Speculation.Kind.MTP, 1, 0.8, null).tokensPerStep())
        .isCloseTo(1.8, within(1e-12));
    assertThat(new Speculation(Speculation.Kind.MTP, 4, 0, null).tokensPerStep()).isEqualTo(1);
    assertThat(new Speculation(Speculation.Kind.MTP, 2, 1, null).tokensPerStep()).isEqualTo(3);
    assertThat(Speculation.NONE.tokensPerStep()).isEqualTo(1);
    assertThatThrownBy(() -> new Speculation(Speculation.Kind.MTP, 0, 0.7, null))
        .hasMessageContaining("--spec-tokens");
    assertThatThrownBy(() -> new Speculation(Speculation.Kind.MTP, 3, 1.2, null))
        .hasMessageContaining("--acceptance");
    assertThatThrownBy(() -> new Speculation(Speculation.Kind.DRAFT, 3, 0.7, null))
        .hasMessageContaining("--draft-model");
  }

  @Test
  void aSpeculativeStepEmitsTheExpectedTokensInTurn() {
    Times t = new Times();
    EngineConfig c = IDEAL.withSpeculation(new Speculation(Speculation.Kind.EAGLE, 3, 0.7, null));
    BatchEngine e = new BatchEngine(c, t);
    e.submit(1, 100, 41, 0);
    e.step(); // prefill: token 0
    assertThat(t.at).hasSize(1);
    int steps = 0;
    List<Integer> perStep = new ArrayList<>();
    while (e.hasWork()) {
      int before = t.at.size();
      BatchEngine.Iteration it = e.step();
      // the verify pass: 1 + 3 positions
      assertThat(it.tokens()).isEqualTo(4);
      perStep.add(t.at.size() - before);
      steps++;
    }
    // credit 2.533 → 2 (0.533 left), 3.066 → 3 (0.066), 2.599 → 2, ...: 40 tokens in 16 steps
    // (40 / 2.533 = 15.8)
    assertThat(perStep.subList(0, 4)).containsExactly(2, 3, 2, 3);
    assertThat(t.at).hasSize(41);
    assertThat(steps).isEqualTo(16);
    assertThat(e.freeBlocks()).isEqualTo(e.roofline().kvCapacityBlocks());
  }

  @Test
  void theVerifyPassAndTheDrafterCostTime() {
    Roofline plain = new Roofline(IDEAL);
    Roofline eagle = new Roofline(IDEAL.withSpeculation(new Speculation(Speculation.Kind.EAGLE, 3, 0.7, null)));
    // one sequence, 100 in context, verifying 4 positions: pairs 4 × 100 + 10
    Roofline.Cost step = eagle.cost(4, 410, 100, 1, 1, 4);
    Roofline.Cost one = plain.cost(1, 101, 100, 1, 1, 1);
    // the drafter: 3 passes, each one layer of 32 ((8,030,261,248 − 2 × 525,336,576) / 32 =
    // 218,111,003 params) + the LM head (525,336,576), 1,486,895,158 B, + one layer's KV of
    // 101 tokens (101 × 4,096 B) = 1,487,308,854 B / 3.35 TB/s = 443,973 ns, the compute
    // term adding under 1 ns; + one graph launch (20 µs) each
    assertThat(step.draftNanos()).isCloseTo(3 * (443_973L + 20_000), within(3L));
    // the verify pass reads the same weights as one token: a few more KV bytes and FLOPs
    assertThat(step.gpuNanos()).isBetween(one.gpuNanos(), one.gpuNanos() + 20_000);
    assertThat(step.samplingNanos()).isCloseTo(4 * one.samplingNanos(), within(2L)); // 1 + K logits
    // so at 2.533 tokens per step the time per token falls from 4.51 ms to about 2.3 ms
    double perToken = step.totalNanos() / 2.533;
    assertThat(perToken).isLessThan(one.totalNanos() * 0.55);
  }

  @Test
  void aDraftModelTakesItsWeightsAndCacheFromTheTargetsRoom() {
    EngineConfig target = EngineConfig.of(Presets.model("llama-3.1-70b"), H100).withTensorParallel(4);
    ModelSpec draft = LLAMA_8B;
    Roofline plain = new Roofline(target);
    Roofline withDraft = new Roofline(target.withSpeculation(
        new Speculation(Speculation.Kind.DRAFT, 4, 0.6, draft)));
    assertThat(withDraft.kvCapacityTokens()).isLessThan(plain.kvCapacityTokens());
    // its four passes: the 8B model's decode step on the same 4 GPUs, each 15.0 GB of weights / 4
    // / (3.35 TB/s × MBU 0.88) = 1.27 ms + 64 all-reduces of 5 µs + a graph launch = 1.61 ms
    Roofline.Cost c = withDraft.cost(5, 505, 100, 1, 1, 5);
    assertThat(c.draftNanos()).isBetween(4 * 1_550_000L, 4 * 1_700_000L);
  }
}
