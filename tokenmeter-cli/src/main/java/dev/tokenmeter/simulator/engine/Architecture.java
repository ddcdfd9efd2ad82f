package dev.tokenmeter.simulator.engine;

import java.util.Objects;

/**
 * What a model's {@code config.json} says beyond a Llama-style shape: multi-head latent attention
 * (DeepSeek-V2/V3), shared experts and dense layers among the MoE ones, sliding-window layers
 * (Gemma 3, gpt-oss), and the precision the checkpoint ships in. {@link #PLAIN} for a Llama-style
 * model. Immutable.
 *
 * @param family the {@code architectures[0]} of the config ({@code "DeepseekV3ForCausalLM"}), or
 *     empty when not known
 * @param kvLoraRank MLA's compressed KV rank, {@code kv_lora_rank} (512 for DeepSeek-V3); 0 for
 *     grouped-query attention
 * @param qkRopeHeadDim MLA's decoupled RoPE key dims, {@code qk_rope_head_dim} (64), cached beside
 *     the latent; 0 without MLA
 * @param qkNopeHeadDim MLA's per-head query/key dims without RoPE, {@code qk_nope_head_dim} (128)
 * @param vHeadDim MLA's per-head value dims, {@code v_head_dim} (128)
 * @param sharedExperts experts every token runs besides the routed ones ({@code n_shared_experts},
 *     Llama 4's shared expert, Qwen2-MoE's shared expert counted in its own width); 0 for none
 * @param denseLayers layers whose MLP is dense, not MoE ({@code first_k_dense_replace}, Llama 4
 *     Maverick's interleaved dense layers); 0 when every layer is MoE or the model is dense
 * @param slidingLayers layers whose attention sees only the last {@code slidingWindow} tokens
 * @param slidingWindow the window of those layers, in tokens (0 when there are none)
 * @param nativeWeights the precision the checkpoint's weights ship in (its {@code torch_dtype} or
 *     {@code quantization_config}): what the deployment loads unless told otherwise
 * @param attentionWeightsWide whether, when the weights are quantized, only the routed experts
 *     are: attention, shared and dense MLP weights stay 16-bit (gpt-oss's MXFP4 checkpoint keeps
 *     {@code self_attn} out of the quantization)
 * @param tiedEmbeddings whether the LM head is the input embedding ({@code tie_word_embeddings}:
 *     Gemma): one {@code vocab × hidden} table in memory, read by the LM head every iteration
 * @param qLoraRank MLA's query compression rank, {@code q_lora_rank} (1,536 for DeepSeek-V3); 0
 *     when queries are projected at full rank (DeepSeek-V2-Lite) or without MLA. Only the
 *     attention weights' size depends on it ({@link ModelSpec#attentionParams()})
 */
public record Architecture(
    String family,
    int kvLoraRank,
    int qkRopeHeadDim,
    int qkNopeHeadDim,
    int vHeadDim,
    int sharedExperts,
    int denseLayers,
    int slidingLayers,
    int slidingWindow,
    Precision nativeWeights,
    boolean attentionWeightsWide,
    boolean tiedEmbeddings,
    int qLoraRank) {

  /** A Llama-style model: grouped-query attention, no sliding windows, BF16 weights. */
  public static final Architecture PLAIN =
      new Architecture("", 0, 0, 0, 0, 0, 0, 0, 0, Precision.BF16, false, false);

  /** An architecture whose queries, if latent, are projected at full rank ({@code qLoraRank} 0). */
  public Architecture(String family, int kvLoraRank, int qkRopeHeadDim, int qkNopeHeadDim,
      int vHeadDim, int sharedExperts, int denseLayers, int slidingLayers, int slidingWindow,
      Precision nativeWeights, boolean attentionWeightsWide, boolean tiedEmbeddings) {
    this(family, kvLoraRank, qkRopeHeadDim, qkNopeHeadDim, vHeadDim, sharedExperts, denseLayers,
        slidingLayers, slidingWindow, nativeWeights, attentionWeightsWide, tiedEmbeddings, 0);
  }

  public Architecture {
    Objects.requireNonNull(family, "family");
    Objects.requireNonNull(nativeWeights, "nativeWeights");
    if (kvLoraRank < 0 || qkRopeHeadDim < 0 || qkNopeHeadDim < 0 || vHeadDim < 0
        || sharedExperts < 0 || denseLayers < 0 || slidingLayers < 0 || slidingWindow < 0
        || qLoraRank < 0) {
      throw new IllegalArgumentException("architecture fields must be >= 0");
    }
    if (kvLoraRank > 0 && (qkNopeHeadDim < 1 || vHeadDim < 1)) {
      throw new IllegalArgumentException(
          "multi-head latent attention needs qk_nope_head_dim and v_head_dim >= 1");
    }
    if ((slidingLayers > 0) != (slidingWindow > 0)) {
      throw new IllegalArgumentException("sliding-window layers need a window, and a window layers");
    }
  }

  /** Whether attention is multi-head latent attention (a compressed KV cache). */
  public boolean latentAttention() {
    return kvLoraRank > 0;
  }

  /** This architecture with another native weight precision. */
  public Architecture withNativeWeights(Precision p) {
    return new Architecture(family, kvLoraRank, qkRopeHeadDim, qkNopeHeadDim, vHeadDim,
        sharedExperts, denseLayers, slidingLayers, slidingWindow, p, attentionWeightsWide,
        tiedEmbeddings, qLoraRank);
  }
}
