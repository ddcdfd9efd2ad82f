package dev.tokenmeter.simulator;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.simulator.engine.Architecture;
import dev.tokenmeter.simulator.engine.GpuSpec;
import dev.tokenmeter.simulator.engine.ModelSpec;
import dev.tokenmeter.simulator.engine.Precision;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Model and accelerator specs as JSON: what {@code tokenmeter sim presets --json} prints for each
 * preset, and what {@code --model-file} / {@code --gpu-file} read back, field for field and in the
 * same units (a copied preset reads back equal to it). Stateless, thread-safe.
 *
 * <p>Reading validates and fails with {@link Invalid}, whose message is one line naming the file,
 * the field and the fix: a missing or unknown field, a non-integer or out-of-range number, KV heads
 * that do not divide the attention heads, a derived figure that disagrees with the shape.
 */
public final class SpecFiles {

  /** A spec file that cannot be used; the message is one line, fit for the user. */
  public static final class Invalid extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message);
    }
  }

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String COPY_HINT = " (copy one from `tokenmeter sim presets --json`)";

  private static final List<String> MODEL_FIELDS =
      List.of("id", "name", "total_params", "active_params", "num_hidden_layers", "hidden_size",
          "num_attention_heads", "num_key_value_heads", "head_dim", "intermediate_size",
          "vocab_size", "qkv_bias", "num_local_experts", "num_experts_per_tok",
          "max_position_embeddings", "kv_bytes_per_token_bf16", "source", "architecture",
          "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "n_shared_experts",
          "dense_layers", "sliding_window", "sliding_window_layers", "weights_dtype",
          "experts_only_quantized", "tie_word_embeddings");
  private static final Set<String> MODEL_OPTIONAL =
      Set.of("name", "qkv_bias", "kv_bytes_per_token_bf16", "source", "architecture",
          "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "n_shared_experts",
          "dense_layers", "sliding_window", "sliding_window_layers", "weights_dtype",
          "experts_only_quantized", "tie_word_embeddings");

  private static final List<String> GPU_FIELDS =
      List.of("id", "name", "memory_bytes", "memory_bandwidth_bytes_per_second",
          "bf16_flops_per_second", "fp8_flops_per_second", "int8_ops_per_second",
          "interconnect_bytes_per_second_per_direction", "interconnect", "source",
          "achievable_bf16_share", "achievable_fp8_share", "fp4_flops_per_second");
  private static final Set<String> GPU_OPTIONAL = Set.of("name", "interconnect", "source",
      "achievable_bf16_share", "achievable_fp8_share", "fp4_flops_per_second");

  private SpecFiles() {}

  /** Writes {@code m} as one JSON object (the fields of {@code sim presets --json}). */
  public static void write(JsonGenerator g, ModelSpec m) throws IOException {
    g.writeStartObject();
    g.writeStringField("id", m.id());
    g.writeStringField("name", m.name());
    g.writeNumberField("total_params", m.totalParams());
    g.writeNumberField("active_params", m.activeParams());
    g.writeNumberField("num_hidden_layers", m.layers());
    g.writeNumberField("hidden_size", m.hiddenSize());
    g.writeNumberField("num_attention_heads", m.attentionHeads());
    g.writeNumberField("num_key_value_heads", m.kvHeads());
    g.writeNumberField("head_dim", m.headDim());
    g.writeNumberField("intermediate_size", m.intermediateSize());
    g.writeNumberField("vocab_size", m.vocabSize());
    g.writeBooleanField("qkv_bias", m.qkvBias());
    g.writeNumberField("num_local_experts", m.experts());
    g.writeNumberField("num_experts_per_tok", m.expertsPerToken());
    g.writeNumberField("max_position_embeddings", m.maxContextTokens());
    g.writeNumberField("kv_bytes_per_token_bf16", kvBytesBf16(m));
    g.writeStringField("source", m.source());
    writeArchitecture(g, m.architecture());
    g.writeEndObject();
  }

  /** Writes {@code s} as one JSON object (the fields of {@code sim presets --json}). */
  public static void write(JsonGenerator g, GpuSpec s) throws IOException {
    g.writeStartObject();
    g.writeStringField("id", s.id());
    g.writeStringField("name", s.name());
    g.writeNumberField("memory_bytes", s.memoryBytes());
    g.writeNumberField("memory_bandwidth_bytes_per_second", s.memoryBandwidthBytesPerSecond());
    g.writeNumberField("bf16_flops_per_second", s.bf16FlopsPerSecond());
    g.writeNumberField("fp8_flops_per_second", s.fp8FlopsPerSecond());
    g.writeNumberField("int8_ops_per_second", s.int8OpsPerSecond());
    g.writeNumberField("interconnect_bytes_per_second_per_direction", s.interconnectBytesPerSecond());
    g.writeStringField("interconnect", s.interconnect());
    g.writeStringField("source", s.source());
    if (s.achievableBf16Share() > 0) {
      g.writeNumberField("achievable_bf16_share", s.achievableBf16Share());
    }
    if (s.achievableFp8Share() > 0) {
      g.writeNumberField("achievable_fp8_share", s.achievableFp8Share());
    }
    if (s.fp4FlopsPerSecond() > 0) {
      g.writeNumberField("fp4_flops_per_second", s.fp4FlopsPerSecond());
    }
    g.writeEndObject();
  }

  /** The fields a Llama-style model does not need, each written only where it differs from one. */
  private static void writeArchitecture(JsonGenerator g, Architecture a) throws IOException {
    if (!a.family().isEmpty()) {
      g.writeStringField("architecture", a.family());
    }
    if (a.latentAttention()) {
      g.writeNumberField("kv_lora_rank", a.kvLoraRank());
      if (a.qLoraRank() > 0) {
        g.writeNumberField("q_lora_rank", a.qLoraRank());
      }
      g.writeNumberField("qk_rope_head_dim", a.qkRopeHeadDim());
      g.writeNumberField("qk_nope_head_dim", a.qkNopeHeadDim());
      g.writeNumberField("v_head_dim", a.vHeadDim());
    }
    if (a.sharedExperts() > 0) {
      g.writeNumberField("n_shared_experts", a.sharedExperts());
    }
    if (a.denseLayers() > 0) {
      g.writeNumberField("dense_layers", a.denseLayers());
    }
    if (a.slidingLayers() > 0) {
      g.writeNumberField("sliding_window", a.slidingWindow());
      g.writeNumberField("sliding_window_layers", a.slidingLayers());
    }
    if (a.nativeWeights() != Precision.BF16) {
      g.writeStringField("weights_dtype", a.nativeWeights().id());
    }
    if (a.attentionWeightsWide()) {
      g.writeBooleanField("experts_only_quantized", true);
    }
    if (a.tiedEmbeddings()) {
      g.writeBooleanField("tie_word_embeddings", true);
    }
  }

  private static Architecture readArchitecture(Fields f) {
    Precision weights;
    try {
      weights = f.has("weights_dtype") ? Precision.parse(f.text("weights_dtype", "bf16")) : Precision.BF16;
    } catch (IllegalArgumentException e) {
      throw f.invalid("weights_dtype: " + e.getMessage());
    }
    try {
      return new Architecture(f.text("architecture", ""), f.count("kv_lora_rank"),
          f.count("qk_rope_head_dim"), f.count("qk_nope_head_dim"), f.count("v_head_dim"),
          f.count("n_shared_experts"), f.count("dense_layers"), f.count("sliding_window_layers"),
          f.count("sliding_window"), weights, f.bool("experts_only_quantized"),
          f.bool("tie_word_embeddings"), f.count("q_lora_rank"));
    } catch (IllegalArgumentException e) {
      throw f.invalid(e.getMessage());
    }
  }

  private static long kvBytesBf16(ModelSpec m) {
    return (long) m.kvBytesPerTokenPerGpu(Precision.BF16, 1);
  }

  /**
   * Reads one model object.
   *
   * @throws Invalid when the file cannot be read or its spec is not usable
   */
  public static ModelSpec readModel(Path file) {
    if (Files.isDirectory(file)) {
      if (!Files.isRegularFile(file.resolve("config.json"))) {
        throw new Invalid("model folder " + file + ": no config.json in it");
      }
      return HfConfigs.read(file);
    }
    if (Files.isRegularFile(file) && looksLikeHfConfig(file)) {
      return HfConfigs.read(file);
    }
    Fields f = new Fields(file, "model", object(file, "model", "models"));
    f.checkNames(MODEL_FIELDS, MODEL_OPTIONAL);
    int heads = f.positiveInt("num_attention_heads");
    int kvHeads = f.positiveInt("num_key_value_heads");
    if (heads % kvHeads != 0) {
      throw f.invalid("num_attention_heads (" + heads + ") is not a multiple of num_key_value_heads ("
          + kvHeads + "): each KV head serves a whole group of query heads");
    }
    long total = f.positiveLong("total_params");
    long active = f.positiveLong("active_params");
    if (active > total) {
      throw f.invalid("active_params (" + active + ") exceeds total_params (" + total + ")");
    }
    int experts = f.positiveInt("num_local_experts");
    int perToken = f.positiveInt("num_experts_per_tok");
    if (perToken > experts) {
      throw f.invalid("num_experts_per_tok (" + perToken + ") exceeds num_local_experts (" + experts + ")");
    }
    String id = f.text("id", null);
    ModelSpec m;
    try {
      m = new ModelSpec(id, f.text("name", id), f.positiveInt("num_hidden_layers"),
          f.positiveInt("hidden_size"), heads, kvHeads, f.positiveInt("head_dim"),
          f.positiveInt("intermediate_size"), f.positiveInt("vocab_size"), f.bool("qkv_bias"),
          total, active, experts, perToken, f.positiveInt("max_position_embeddings"),
          f.text("source", file.toString()), readArchitecture(f));
    } catch (IllegalArgumentException e) {
      throw f.invalid(e.getMessage());
    }
    if (f.has("kv_bytes_per_token_bf16") && f.positiveLong("kv_bytes_per_token_bf16") != kvBytesBf16(m)) {
      throw f.invalid("kv_bytes_per_token_bf16 is derived (2 x layers x KV heads x head_dim x 2, or"
          + " layers x (kv_lora_rank + qk_rope_head_dim) x 2 with latent attention) = "
          + kvBytesBf16(m) + " for this shape, not " + f.positiveLong("kv_bytes_per_token_bf16")
          + "; fix the shape or remove the field");
    }
    return m;
  }

  /**
   * Reads one accelerator object.
   *
   * @throws Invalid when the file cannot be read or its spec is not usable
   */
  public static GpuSpec readGpu(Path file) {
    Fields f = new Fields(file, "GPU", object(file, "GPU", "gpus"));
    f.checkNames(GPU_FIELDS, GPU_OPTIONAL);
    String id = f.text("id", null);
    return new GpuSpec(id, f.text("name", id), f.positiveLong("memory_bytes"),
        f.positiveNumber("memory_bandwidth_bytes_per_second"), f.positiveNumber("bf16_flops_per_second"),
        f.nonNegativeNumber("fp8_flops_per_second"), f.nonNegativeNumber("int8_ops_per_second"),
        f.positiveNumber("interconnect_bytes_per_second_per_direction"),
        f.text("interconnect", "unknown"), f.text("source", file.toString()),
        f.share("achievable_bf16_share"), f.share("achievable_fp8_share"),
        f.has("fp4_flops_per_second") ? f.nonNegativeNumber("fp4_flops_per_second") : 0);
  }

  /** Whether the file's JSON is a Hugging Face config (a model_type or architectures field). */
  private static boolean looksLikeHfConfig(Path file) {
    try {
      return HfConfigs.isHfConfig(MAPPER.readTree(Files.readString(file)));
    } catch (IOException e) {
      return false; // object() reports it
    }
  }

  private static JsonNode object(Path file, String what, String arrayName) {
    String prefix = what + " file " + file + ": ";
    JsonNode root;
    try {
      root = MAPPER.readTree(Files.readString(file));
    } catch (JsonProcessingException e) {
      throw new Invalid(prefix + "not valid JSON (" + e.getOriginalMessage().replace('\n', ' ') + ")");
    } catch (IOException e) {
      throw new Invalid(prefix + "cannot read it (" + e.getMessage() + ")");
    }
    if (root != null && root.has(arrayName)) {
      throw new Invalid(prefix + "holds the whole presets list; keep one object of '" + arrayName
          + "' and edit it");
    }
    if (root == null || !root.isObject()) {
      throw new Invalid(prefix + "expected one JSON object" + COPY_HINT);
    }
    return root;
  }

  /** One spec object's fields, with errors that name the file and the field. */
  private record Fields(Path file, String what, JsonNode root) {
    Invalid invalid(String problem) {
      return new Invalid(what + " file " + file + ": " + problem);
    }

    boolean has(String name) {
      return root.hasNonNull(name);
    }

    void checkNames(List<String> known, Set<String> optional) {
      for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
        String name = it.next();
        if (!known.contains(name)) {
          throw invalid("unknown field '" + name + "'; fields: " + String.join(", ", known));
        }
      }
      List<String> missing = new ArrayList<>();
      for (String name : known) {
        if (!optional.contains(name) && !has(name)) {
          missing.add(name);
        }
      }
      if (!missing.isEmpty()) {
        throw invalid("missing field" + (missing.size() > 1 ? "s " : " ") + String.join(", ", missing)
            + COPY_HINT);
      }
    }

    String text(String name, String fallback) {
      if (!has(name)) {
        return fallback;
      }
      JsonNode n = root.get(name);
      if (!n.isTextual() || n.asText().isBlank()) {
        throw invalid(name + " must be a non-empty string, got " + n);
      }
      return n.asText();
    }

    boolean bool(String name) {
      if (!has(name)) {
        return false;
      }
      if (!root.get(name).isBoolean()) {
        throw invalid(name + " must be true or false, got " + root.get(name));
      }
      return root.get(name).asBoolean();
    }

    long positiveLong(String name) {
      JsonNode n = root.get(name);
      if (!n.isNumber() || !n.canConvertToExactIntegral() || !n.canConvertToLong() || n.asLong() < 1) {
        throw invalid(name + " must be a whole number >= 1, got " + n);
      }
      return n.asLong();
    }

    /** An optional whole number >= 0; 0 when absent. */
    int count(String name) {
      if (!has(name)) {
        return 0;
      }
      JsonNode n = root.get(name);
      if (!n.isNumber() || !n.canConvertToInt() || !n.canConvertToExactIntegral() || n.asInt() < 0) {
        throw invalid(name + " must be a whole number >= 0, got " + n);
      }
      return n.asInt();
    }

    int positiveInt(String name) {
      long v = positiveLong(name);
      if (v > Integer.MAX_VALUE) {
        throw invalid(name + " must be at most " + Integer.MAX_VALUE + ", got " + v);
      }
      return (int) v;
    }

    double positiveNumber(String name) {
      double v = nonNegativeNumber(name);
      if (v == 0) {
        throw invalid(name + " must be > 0, got 0");
      }
      return v;
    }

    /** An optional share in (0, 1]; 0 when the field is absent. */
    double share(String name) {
      if (!has(name)) {
        return 0;
      }
      JsonNode n = root.get(name);
      if (!n.isNumber() || !(n.asDouble() > 0 && n.asDouble() <= 1)) {
        throw invalid(name + " must be a share in (0, 1] (measured matmul FLOP/s over the"
            + " datasheet's dense peak), got " + n);
      }
      return n.asDouble();
    }

    double nonNegativeNumber(String name) {
      JsonNode n = root.get(name);
      if (!n.isNumber() || !(n.asDouble() >= 0) || Double.isInfinite(n.asDouble())) {
        throw invalid(name + " must be a number >= 0 (use 0 where the GPU has none), got " + n);
      }
      return n.asDouble();
    }
  }
}
