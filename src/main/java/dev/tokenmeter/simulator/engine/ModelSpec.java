package dev.tokenmeter.simulator.engine;

import java.util.Objects;

/**
 * One decoder-only transformer, by the fields of its Hugging Face {@code config.json} and its
 * parameter count (from the safetensors metadata; {@link #countParams()} recomputes it from the
 * shapes for Llama-style models).
 *
 * @param id short name used on the command line ({@code llama-3.1-8b})
 * @param name the Hugging Face repository
 * @param layers {@code num_hidden_layers}
 * @param hiddenSize {@code hidden_size}
 * @param attentionHeads {@code num_attention_heads}
 * @param kvHeads {@code num_key_value_heads}
 * @param headDim {@code head_dim} (or {@code hidden_size / num_attention_heads})
 * @param intermediateSize {@code intermediate_size} (per expert for mixture-of-experts)
 * @param vocabSize {@code vocab_size}
 * @param qkvBias whether q, k and v projections have biases (Qwen2)
 * @param totalParams every parameter, the bytes of weights in memory
 * @param activeParams parameters used per token (equal to total for dense models)
 * @param experts {@code num_local_experts} (1 for dense models)
 * @param expertsPerToken {@code num_experts_per_tok} (1 for dense models)
 * @param maxContextTokens {@code max_position_embeddings}
 * @param source where the figures come from
 */
public record ModelSpec(
    String id,
    String name,
    int layers,
    int hiddenSize,
    int attentionHeads,
    int kvHeads,
    int headDim,
    int intermediateSize,
    int vocabSize,
    boolean qkvBias,
    long totalParams,
    long activeParams,
    int experts,
    int expertsPerToken,
    int maxContextTokens,
    String source) {

  public ModelSpec {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    if (layers < 1
        || hiddenSize < 1
        || attentionHeads < 1
        || kvHeads < 1
        || headDim < 1
        || maxContextTokens < 1) {
      throw new IllegalArgumentException("model " + id + ": shape fields must be >= 1");
    }
    if (activeParams < 1 || activeParams > totalParams) {
      throw new IllegalArgumentException("model " + id + ": need 1 <= activeParams <= totalParams");
    }
    if (experts < 1 || expertsPerToken < 1 || expertsPerToken > experts) {
      throw new IllegalArgumentException("model " + id + ": need 1 <= expertsPerToken <= experts");
    }
  }

  /** Parameters of one {@code vocab × hidden} table: the input embedding, and the LM head. */
  public long embeddingParams() {
    return (long) vocabSize * hiddenSize;
  }

  /** Whether only some experts run per token (total > active parameters). */
  public boolean mixtureOfExperts() {
    return experts > 1;
  }

  /**
   * KV-cache bytes per token on one of {@code tensorParallel} GPUs: K and V, every layer, the KV
   * heads on that GPU ({@code kvHeads / tp}, or 1 when there are fewer KV heads than GPUs and they
   * are replicated), {@code headDim} values each. Llama 3.1 8B in BF16: 2 × 32 × 8 × 128 × 2 =
   * 131,072 bytes.
   */
  public double kvBytesPerTokenPerGpu(Precision kv, int tensorParallel) {
    int headsPerGpu = Math.max(1, kvHeads / tensorParallel);
    return 2.0 * layers * headsPerGpu * headDim * kv.bytesPerValue();
  }

  /**
   * Parameters whose weights one iteration reads for {@code tokens} tokens. Dense: all of them.
   * Mixture of experts: the shared part plus the experts routed to, where a token picks {@code k}
   * of {@code E} experts per layer and the expected share of experts touched by {@code T} tokens is
   * {@code 1 − (1 − k/E)^T} (uniform routing): at one token exactly the active parameters, at many
   * all of them.
   */
  public double paramsReadPerIteration(int tokens) {
    if (!mixtureOfExperts()) {
      return totalParams;
    }
    // total = shared + E·p, active = shared + k·p  =>  p = (total − active) / (E − k)
    double perExpert = (double) (totalParams - activeParams) / (experts - expertsPerToken);
    double shared = totalParams - experts * perExpert;
    double touched = 1.0 - Math.pow(1.0 - (double) expertsPerToken / experts, tokens);
    return shared + experts * perExpert * touched;
  }

  /**
   * Parameters recomputed from the shapes of a Llama-style model (untied embeddings and LM head,
   * q/k/v/o projections, SwiGLU MLP per expert, a router per MoE layer, two RMSNorms per layer
   * and a final one): the check on {@link #totalParams}.
   */
  public long countParams() {
    long h = hiddenSize;
    long q = (long) attentionHeads * headDim;
    long kvDim = (long) kvHeads * headDim;
    long attention = h * q + 2 * h * kvDim + q * h + (qkvBias ? q + 2 * kvDim : 0);
    long mlp = (long) experts * 3 * h * intermediateSize + (experts > 1 ? h * experts : 0);
    long perLayer = attention + mlp + 2 * h;
    return 2 * (long) vocabSize * h + layers * perLayer + h;
  }
}
