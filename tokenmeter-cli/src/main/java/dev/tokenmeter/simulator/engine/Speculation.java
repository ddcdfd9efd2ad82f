package dev.tokenmeter.simulator.engine;

import java.util.Locale;
import java.util.Objects;

/**
 * Speculative decoding: a cheap drafter proposes {@code tokens} tokens per decode step, the target
 * model verifies them in one forward pass over 1 + K positions, and the accepted prefix plus one
 * token of the target's own leave together. Immutable; {@link #NONE} for plain decoding.
 *
 * <pre>
 * design notes
 * - Tokens per step: with each draft token accepted with probability r given its predecessors
 *   were, the expected accepted prefix is Σ r^i (i = 1..K), so a step yields 1 + Σ r^i tokens
 *   (Leviathan et al., "Fast Inference from Transformers via Speculative Decoding", 2023, eq. 1,
 *   with r as the per-token acceptance rate). K = 3, r = 0.7: 2.533 tokens per step.
 * - The verify pass: every decoding sequence computes 1 + K positions (K more tokens of matmul,
 *   attention and KV written) and samples 1 + K logits; blocks are reserved for all of them
 *   (vLLM's lookahead slots), rejected ones are overwritten by later steps.
 * - The drafter's cost, K sequential forward passes over the decoding sequences:
 *   MTP (DeepSeek-V3's num_nextn_predict_layers = 1) and EAGLE are one decoder layer of the target
 *   plus its LM head: the iteration's share of one layer's weights (its experts as the batch
 *   touches them), the vocabulary table, one layer's KV of the context, and one graph launch
 *   each. A draft model runs its own K decode iterations (its weights, its KV) and takes its
 *   weights' and KV cache's room from the target's KV cache.
 * - Emission is deterministic: each sequence keeps a credit of expected tokens, adds 1 + Σ r^i per
 *   step and emits the whole part (at least 1, at most what it still owes); the mean rate is
 *   exact, the per-step count alternates (2, 3, 2, 3, ... for 2.533).
 * </pre>
 *
 * @param kind the drafter
 * @param tokens K, draft tokens proposed per step (0 for none)
 * @param acceptance r, the probability each draft token is accepted, in [0, 1]
 * @param draft the draft model for {@link Kind#DRAFT}; null otherwise
 */
public record Speculation(Kind kind, int tokens, double acceptance, ModelSpec draft) {

  /** Who proposes the draft tokens. */
  public enum Kind {
    NONE,
    /** Multi-token prediction layers shipped with the model (DeepSeek-V3/R1). */
    MTP,
    /** An EAGLE head: one decoder layer on the target's hidden states. */
    EAGLE,
    /** A separate, smaller draft model. */
    DRAFT;

    /** {@code "mtp"}. */
    public String id() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Plain decoding: one token per step. */
  public static final Speculation NONE = new Speculation(Kind.NONE, 0, 0, null);

  public Speculation {
    Objects.requireNonNull(kind, "kind");
    if (kind == Kind.NONE ? tokens != 0 : tokens < 1 || tokens > 16) {
      throw new IllegalArgumentException("--spec-tokens must be between 1 and 16, got " + tokens);
    }
    if (!(acceptance >= 0 && acceptance <= 1)) {
      throw new IllegalArgumentException("--acceptance must be in [0, 1], got " + acceptance);
    }
    if ((kind == Kind.DRAFT) != (draft != null)) {
      throw new IllegalArgumentException("--speculative draft needs a draft model (--draft-model),"
          + " and only it takes one");
    }
  }

  /** Whether decode steps speculate. */
  public boolean enabled() {
    return kind != Kind.NONE;
  }

  /** 1 + Σ r^i for i = 1..K: the expected tokens one decode step emits per sequence. */
  public double tokensPerStep() {
    double sum = 1;
    double term = 1;
    for (int i = 1; i <= tokens; i++) {
      term *= acceptance;
      sum += term;
    }
    return sum;
  }

  /** Positions each decoding sequence computes in a step: 1 + K. */
  public int positionsPerStep() {
    return 1 + tokens;
  }
}
