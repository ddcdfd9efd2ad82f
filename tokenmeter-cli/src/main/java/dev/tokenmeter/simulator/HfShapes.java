package dev.tokenmeter.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.simulator.engine.Architecture;
import dev.tokenmeter.simulator.engine.ModelSpec;
import dev.tokenmeter.simulator.engine.Precision;
import java.util.Locale;

/**
 * One Hugging Face config's shape as a {@link ModelSpec}: the fields each supported {@code
 * model_type} names, and its parameters counted module by module ({@link HfConfigs} has the
 * design notes and the published totals the counts are checked against). Stateless.
 */
final class HfShapes {
  private HfShapes() {}

  /** The per-layer modules of one architecture, as counted. */
  private record Counts(long attention, long denseMlp, long expert, long router, long shared,
      long norms) {}

  /**
   * @throws IllegalArgumentException naming the field or the unsupported architecture
   */
  static ModelSpec map(JsonNode root, String id, String name, String source) {
    String type = root.path("model_type").asText("");
    // multimodal wrappers keep the language model's fields in text_config
    JsonNode c = root.has("text_config") ? root.get("text_config") : root;
    type = switch (type) {
      case "llama4_text" -> "llama4";
      case "gemma3_text" -> "gemma3";
      default -> type;
    };
    if (!HfConfigs.SUPPORTED.contains(type)) {
      String arch = HfConfigs.family(root);
      throw new IllegalArgumentException("architecture " + (arch.isEmpty() ? "" : arch + " ")
          + "(model_type '" + type + "') is not one the simulator maps; supported model types: "
          + String.join(", ", HfConfigs.SUPPORTED));
    }
    Precision weights = HfConfigs.weights(root);
    int layers = positive(c, "num_hidden_layers");
    int hidden = positive(c, "hidden_size");
    int heads = positive(c, "num_attention_heads");
    int kvHeads = c.path("num_key_value_heads").asInt(heads);
    int headDim = c.hasNonNull("head_dim") ? positive(c, "head_dim") : hidden / heads;
    int vocab = positive(c, "vocab_size");
    int context = positive(c, "max_position_embeddings");
    boolean tied = c.path("tie_word_embeddings").asBoolean(root.path("tie_word_embeddings")
        .asBoolean(type.equals("gemma3")));
    boolean qkvBias = type.equals("qwen2") || type.equals("qwen2_moe")
        || c.path("attention_bias").asBoolean(false);

    int experts = 1;
    int perToken = 1;
    int moeLayers = 0;
    int denseLayers = 0;
    int sharedExperts = 0;
    int width = c.path("intermediate_size").asInt(0);
    int kvLora = 0;
    int rope = 0;
    int nope = 0;
    int vDim = 0;
    int qLoraRank = 0;
    int slidingLayers = 0;
    int window = 0;
    boolean wideAttention = false;

    // attention
    long h = hidden;
    long q = (long) heads * headDim;
    long kv = (long) kvHeads * headDim;
    long attention = h * q + 2 * h * kv + q * h + (qkvBias ? q + 2 * kv : 0);
    long norms = 2 * h;
    switch (type) {
      case "qwen3", "qwen3_moe" -> attention += 2L * headDim; // q_norm, k_norm
      case "gemma3" -> {
        attention += 2L * headDim;
        norms = 4 * h; // input, post-attention, pre- and post-feedforward
      }
      case "gpt_oss" -> attention += h + heads; // o_proj bias, attention sinks
      default -> { }
    }
    if (type.startsWith("deepseek")) {
      kvLora = positive(c, "kv_lora_rank");
      rope = positive(c, "qk_rope_head_dim");
      nope = positive(c, "qk_nope_head_dim");
      vDim = positive(c, "v_head_dim");
      long qLora = c.path("q_lora_rank").asLong(0);
      qLoraRank = (int) qLora;
      long qOut = (long) heads * (nope + rope);
      long qProj = qLora > 0 ? h * qLora + qLora + qLora * qOut : h * qOut;
      attention = qProj + h * (kvLora + rope) + kvLora + (long) kvLora * heads * (nope + vDim)
          + (long) heads * vDim * h;
      headDim = nope + rope;
      kvHeads = heads;
    }

    // MLPs and experts
    long denseMlp = 3 * h * width;
    long expert = 0;
    long router = 0;
    long shared = 0;
    switch (type) {
      case "mixtral" -> {
        experts = positive(c, "num_local_experts");
        perToken = positive(c, "num_experts_per_tok");
        moeLayers = layers;
        expert = 3 * h * width;
        router = h * experts;
      }
      case "qwen2_moe", "qwen3_moe" -> {
        experts = positive(c, "num_experts");
        perToken = positive(c, "num_experts_per_tok");
        int step = c.path("decoder_sparse_step").asInt(1);
        int mlpOnly = c.path("mlp_only_layers").size();
        moeLayers = 0;
        for (int i = 0; i < layers; i++) {
          if ((i + 1) % step == 0) {
            moeLayers++;
          }
        }
        moeLayers -= mlpOnly;
        width = positive(c, "moe_intermediate_size");
        expert = 3 * h * width;
        router = h * experts;
        int sharedWidth = c.path("shared_expert_intermediate_size").asInt(0);
        if (sharedWidth > 0) {
          sharedExperts = 1;
          shared = 3 * h * sharedWidth + h; // + shared_expert_gate
        }
      }
      case "deepseek_v2", "deepseek_v3" -> {
        experts = positive(c, "n_routed_experts");
        perToken = positive(c, "num_experts_per_tok");
        denseLayers = c.path("first_k_dense_replace").asInt(0);
        moeLayers = layers - denseLayers;
        width = positive(c, "moe_intermediate_size");
        expert = 3 * h * width;
        router = h * experts + (type.equals("deepseek_v3") ? experts : 0); // correction bias
        sharedExperts = c.path("n_shared_experts").asInt(0);
        shared = sharedExperts * expert;
        denseMlp = 3 * h * positive(c, "intermediate_size");
      }
      case "gpt_oss" -> {
        experts = positive(c, "num_local_experts");
        perToken = c.hasNonNull("num_experts_per_tok") ? positive(c, "num_experts_per_tok")
            : positive(c, "experts_per_token");
        moeLayers = layers;
        expert = 3 * h * width + 2L * width + h; // gate_up and down projections, with biases
        router = h * experts + experts;
        JsonNode keep = root.path("quantization_config").path("modules_to_not_convert");
        wideAttention = keep.toString().contains("self_attn");
      }
      case "llama4" -> {
        experts = positive(c, "num_local_experts");
        perToken = positive(c, "num_experts_per_tok");
        int step = c.path("interleave_moe_layer_step").asInt(1);
        moeLayers = layers / step;
        denseLayers = layers - moeLayers;
        expert = 3 * h * width;
        router = h * experts;
        sharedExperts = 1;
        shared = expert;
        denseMlp = 3 * h * c.path("intermediate_size_mlp").asLong(width);
        int chunk = c.path("attention_chunk_size").asInt(0);
        if (chunk > 0) {
          int interval = c.path("no_rope_layer_interval").asInt(4);
          slidingLayers = layers - layers / interval; // RoPE layers attend within their chunk
          window = chunk;
        }
      }
      default -> { }
    }
    if (type.equals("gemma3") || type.equals("gpt_oss")
        || (type.equals("mistral") && c.hasNonNull("sliding_window"))
        || (type.startsWith("qwen") && c.path("use_sliding_window").asBoolean(false))) {
      int[] sw = sliding(c, layers, type);
      slidingLayers = sw[0];
      window = sw[1];
    }

    Counts counts = new Counts(attention, denseMlp, expert, router, shared, norms);
    long perLayerCommon = counts.attention() + counts.norms();
    long total = (tied ? 1 : 2) * (long) vocab * h + h + layers * perLayerCommon;
    long active = total;
    if (experts > 1) {
      long moePart = experts * counts.expert() + counts.router() + counts.shared();
      total += moeLayers * moePart + (long) (layers - moeLayers) * counts.denseMlp();
      active = total - (long) moeLayers * (experts - perToken) * counts.expert();
    } else {
      total += layers * counts.denseMlp();
      active = total;
    }
    Architecture arch = new Architecture(HfConfigs.family(root), kvLora, rope, nope, vDim,
        sharedExperts, experts > 1 ? denseLayers : 0, slidingLayers, window, weights,
        wideAttention, tied, qLoraRank);
    return new ModelSpec(id, name, layers, hidden, heads, kvHeads, headDim, width, vocab, qkvBias,
        total, active, experts, perToken, context, source, arch);
  }

  /** {sliding-window layers, window}: from layer_types, else the pattern, else every layer. */
  private static int[] sliding(JsonNode c, int layers, String type) {
    int window = c.path("sliding_window").asInt(0);
    if (window <= 0) {
      return new int[] {0, 0};
    }
    JsonNode types = c.path("layer_types");
    if (types.isArray() && !types.isEmpty()) {
      int n = 0;
      for (JsonNode t : types) {
        if (t.asText("").toLowerCase(Locale.ROOT).startsWith("sliding")) {
          n++;
        }
      }
      return new int[] {n, n == 0 ? 0 : window};
    }
    if (type.equals("gemma3")) {
      int pattern = c.path("sliding_window_pattern").asInt(6); // 5 local : 1 global
      return new int[] {layers - layers / pattern, window};
    }
    if (type.equals("gpt_oss")) {
      return new int[] {(layers + 1) / 2, window}; // alternating, starting with a sliding layer
    }
    return new int[] {layers, window};
  }

  private static int positive(JsonNode c, String field) {
    JsonNode n = c.get(field);
    if (n == null || !n.canConvertToInt() || n.asInt() < 1) {
      throw new IllegalArgumentException(field + " must be a whole number >= 1, got "
          + (n == null ? "nothing" : n.toString()));
    }
    return n.asInt();
  }
}
