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
 * @param architecture what the shape above does not say: latent attention, shared experts, dense
 *     layers, sliding windows, the checkpoint's precision ({@link Architecture#PLAIN} for a
 *     Llama-style model)
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
    String source,
    Architecture architecture) {

  /** A Llama-style model ({@link Architecture#PLAIN}). */
  public ModelSpec(String id, String name, int layers, int hiddenSize, int attentionHeads,
      int kvHeads, int headDim, int intermediateSize, int vocabSize, boolean qkvBias,
      long totalParams, long activeParams, int experts, int expertsPerToken, int maxContextTokens,
      String source) {
    this(id, name, layers, hiddenSize, attentionHeads, kvHeads, headDim, intermediateSize,
        vocabSize, qkvBias, totalParams, activeParams, experts, expertsPerToken, maxContextTokens,
        source, Architecture.PLAIN);
  }

  public ModelSpec {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(architecture, "architecture");
    if (architecture.slidingLayers() > layers || architecture.denseLayers() > layers) {
      throw new IllegalArgumentException(
          "model " + id + ": more sliding-window or dense layers than layers");
    }
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

  /**
   * Parameters of the input embedding that an iteration looks up rather than multiplies: the
   * table, or 0 when the LM head shares it ({@link Architecture#tiedEmbeddings()}) and so reads it.
   */
  public long inputEmbeddingParams() {
    return architecture.tiedEmbeddings() ? 0 : embeddingParams();
  }

  /** Whether only some experts run per token (total > active parameters). */
  public boolean mixtureOfExperts() {
    return experts > 1;
  }

  /**
   * KV-cache bytes per token on one of {@code tensorParallel} GPUs. Grouped-query attention: K and
   * V, every layer, the KV heads on that GPU ({@code kvHeads / tp}, or 1 when there are fewer KV
   * heads than GPUs and they are replicated), {@code headDim} values each; Llama 3.1 8B in BF16:
   * 2 × 32 × 8 × 128 × 2 = 131,072 bytes. Multi-head latent attention: one compressed latent of
   * {@code kv_lora_rank} values and the decoupled RoPE key of {@code qk_rope_head_dim}, every
   * layer, shared by all heads and so whole on every tensor-parallel GPU (vLLM and SGLang
   * replicate the latent cache across TP ranks; data-parallel attention is what divides it);
   * DeepSeek-V3 in BF16: 61 × (512 + 64) × 2 = 70,272 bytes. Sliding-window layers count like
   * full ones here; {@link Roofline} keeps only their window where the engine does ({@link
   * EngineProfile#windowedKvCache()}).
   */
  public double kvBytesPerTokenPerGpu(Precision kv, int tensorParallel) {
    if (architecture.latentAttention()) {
      return (double) layers * (architecture.kvLoraRank() + architecture.qkRopeHeadDim())
          * kv.bytesPerValue();
    }
    int headsPerGpu = Math.max(1, kvHeads / tensorParallel);
    return 2.0 * layers * headsPerGpu * headDim * kv.bytesPerValue();
  }

  /**
   * Attention FLOPs of {@code pairs} (query token, attended token) pairs over all layers, for
   * {@code tokens} query tokens. Grouped-query attention: 4 × heads × headDim per pair and layer
   * (QKᵀ and AV). Multi-head latent attention in decode ({@code decodeOnly}: the weights absorbed,
   * attention over the latent, as vLLM's and SGLang's MLA decode kernels run it): 2 × heads ×
   * (kv_lora_rank + rope) for QKᵀ plus 2 × heads × kv_lora_rank for AV, per pair and layer
   * (DeepSeek-V3: 2 × 128 × 1,088 = 278,528); in prefill (keys and values expanded per head):
   * 2 × heads × (nope + rope) + 2 × heads × v_head_dim (2 × 128 × 320 = 81,920). A sliding-window
   * layer attends to at most {@code window} positions per query token, so its pairs are capped at
   * {@code tokens × window}.
   */
  public double attentionFlops(double pairs, int tokens, boolean decodeOnly) {
    Architecture a = architecture;
    double perPairPerLayer;
    if (a.latentAttention()) {
      perPairPerLayer = decodeOnly
          ? 2.0 * attentionHeads * (2.0 * a.kvLoraRank() + a.qkRopeHeadDim())
          : 2.0 * attentionHeads * (a.qkNopeHeadDim() + a.qkRopeHeadDim() + a.vHeadDim());
    } else if (a.slidingLayers() == 0) {
      return 4.0 * layers * attentionHeads * headDim * pairs;
    } else {
      perPairPerLayer = 4.0 * attentionHeads * headDim;
    }
    int sliding = a.slidingLayers();
    double slidingPairs = Math.min(pairs, (double) tokens * a.slidingWindow());
    return perPairPerLayer * ((layers - sliding) * pairs + sliding * slidingPairs);
  }

  /**
   * The share of a token's KV-cache bytes in sliding-window layers: what is read for at most the
   * window's tokens per sequence.
   */
  public double slidingKvShare() {
    return (double) architecture.slidingLayers() / layers;
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
    double shared = totalParams - experts * paramsPerExpert();
    return shared + routedParamsReadPerIteration(tokens);
  }

  /**
   * Parameters of one routed expert, over all its MoE layers: total = shared + E·p and active =
   * shared + k·p give p = (total − active) / (E − k), where "shared" is everything that runs for
   * every token (attention, embeddings, shared experts, dense layers' MLPs). 0 for a dense model.
   */
  public double paramsPerExpert() {
    return mixtureOfExperts()
        ? (double) (totalParams - activeParams) / (experts - expertsPerToken)
        : 0;
  }

  /**
   * Routed-expert parameters one iteration of {@code tokens} tokens reads: E·p times the expected
   * share of experts a batch touches, 1 − (1 − k/E)^T (uniform routing; E·(1 − (1 − k/E)^T)
   * distinct experts). 0 for a dense model. DeepSeek-V3 (E = 256, k = 8): 8 experts at one token,
   * 256 × (1 − (31/32)^32) = 161.3 at 32, 255.9 at 256.
   */
  public double routedParamsReadPerIteration(int tokens) {
    if (!mixtureOfExperts()) {
      return 0;
    }
    double touched = 1.0 - Math.pow(1.0 - (double) expertsPerToken / experts, tokens);
    return experts * paramsPerExpert() * touched;
  }

  /**
   * Parameters of the attention blocks, all layers: what data-parallel attention replicates on
   * every GPU of an attention group. Grouped-query attention: q, k, v and o projections (with
   * Qwen2's biases), h × heads × headDim + 2 × h × kvHeads × headDim + heads × headDim × h.
   * Multi-head latent attention: the query path (through {@code q_lora_rank} when there is one:
   * h × r + r + r × heads × (nope + rope), else h × heads × (nope + rope)), the latent and RoPE-key
   * projection h × (kv_lora_rank + rope) and its norm, the up-projection kv_lora_rank × heads ×
   * (nope + v) and o, heads × v × h; DeepSeek-V3: 187,107,328 a layer, 11,413,547,008 in all.
   * Per-head norms and attention sinks (a few thousand parameters) are not counted.
   */
  public double attentionParams() {
    Architecture a = architecture;
    long h = hiddenSize;
    long perLayer;
    if (a.latentAttention()) {
      long qOut = (long) attentionHeads * (a.qkNopeHeadDim() + a.qkRopeHeadDim());
      long r = a.qLoraRank();
      long query = r > 0 ? h * r + r + r * qOut : h * qOut;
      perLayer = query + h * (a.kvLoraRank() + a.qkRopeHeadDim()) + a.kvLoraRank()
          + (long) a.kvLoraRank() * attentionHeads * (a.qkNopeHeadDim() + a.vHeadDim())
          + (long) attentionHeads * a.vHeadDim() * h;
    } else {
      long q = (long) attentionHeads * headDim;
      long kv = (long) kvHeads * headDim;
      perLayer = h * q + 2 * h * kv + q * h + (qkvBias ? q + 2 * kv : 0);
    }
    return (double) perLayer * layers;
  }

  /** Parameters of every routed expert together, E × {@link #paramsPerExpert()}; 0 if dense. */
  public double routedParams() {
    return experts * paramsPerExpert();
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
