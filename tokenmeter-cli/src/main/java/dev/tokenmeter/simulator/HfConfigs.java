package dev.tokenmeter.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.simulator.engine.ModelSpec;
import dev.tokenmeter.simulator.engine.Precision;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Models from a Hugging Face {@code config.json}: a file, a model folder, or {@code hf:org/name}
 * from the local Hugging Face cache (never the network). Maps the shape, the experts, multi-head
 * latent attention, sliding-window layers, the dtype and the {@code quantization_config} to a
 * {@link ModelSpec}, and counts the parameters from the shapes, architecture by architecture (a
 * config carries no parameter count). Stateless, thread-safe.
 *
 * <pre>
 * design notes
 * - Parameter counts follow each architecture's modules in Hugging Face transformers (and vLLM's
 *   loaders): q/k/v/o (+ biases where the config says so), per-head q/k norms (Qwen3, Gemma 3),
 *   SwiGLU/GeGLU MLPs (3 × hidden × width), experts, routers (+ DeepSeek-V3's correction bias,
 *   gpt-oss's router bias), shared experts, RMSNorms, embeddings (one table when tied). MTP
 *   layers (DeepSeek-V3's num_nextn_predict_layers) and vision towers are not counted: the
 *   engine loads them only for speculative decoding or images. Quantisation scales are not
 *   counted (the Precision's bytes per value carry the block scales of FP4 formats).
 * - Checked against the published totals: DeepSeek-V3 671.0B (37.6B active with the embedding,
 *   36.6B without, as its README says), gpt-oss-120b 116.83B / 5.13B without the embedding
 *   (OpenAI's model card), Qwen3-235B-A22B 235.1B / 22.2B, Llama 4 Scout 107.8B text (109B with
 *   the vision encoder) / 17.2B, Maverick 400.7B / 17.2B, Gemma 3 27B 27.0B text.
 * - Llama 4's chunked local attention (attention_chunk_size, 3 of 4 layers) is mapped to a
 *   sliding window of the chunk size: a query attends to at most the chunk, on average half.
 * </pre>
 */
public final class HfConfigs {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** The {@code model_type}s this reader maps, as the error lists them. */
  public static final List<String> SUPPORTED =
      List.of("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
          "deepseek_v2", "deepseek_v3", "gpt_oss", "llama4", "gemma3");

  private HfConfigs() {}

  /** Whether this JSON object is a Hugging Face config (it names a model type or architectures). */
  public static boolean isHfConfig(JsonNode root) {
    return root != null && root.isObject() && (root.has("model_type") || root.has("architectures"));
  }

  /**
   * The model of a {@code config.json} file or of a folder holding one.
   *
   * @throws SpecFiles.Invalid when there is no config, it is not JSON, or its architecture is not
   *     one of {@link #SUPPORTED}
   */
  public static ModelSpec read(Path fileOrFolder) {
    Path file = Files.isDirectory(fileOrFolder) ? fileOrFolder.resolve("config.json") : fileOrFolder;
    String name = defaultName(file);
    return read(file, name.toLowerCase(Locale.ROOT), name);
  }

  /**
   * The model {@code hf:org/name} from the local Hugging Face cache: {@code
   * $HF_HUB_CACHE/models--org--name/snapshots/<rev>/config.json}, the hub cache being {@code
   * HF_HUB_CACHE}, else {@code $HF_HOME/hub}, else {@code ~/.cache/huggingface/hub}; the snapshot
   * {@code refs/main} names, else the newest.
   *
   * @throws SpecFiles.Invalid when the model is not in the cache (the line says how to get it)
   */
  public static ModelSpec fromCache(String repo, Map<String, String> env) {
    if (!repo.matches("[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")) {
      throw new SpecFiles.Invalid("--model hf:" + repo + ": expected hf:org/name, as on huggingface.co");
    }
    Path hub = hubCache(env);
    Path snapshots = hub.resolve("models--" + repo.replace("/", "--")).resolve("snapshots");
    Path config = snapshotConfig(snapshots);
    if (config == null) {
      throw new SpecFiles.Invalid("--model hf:" + repo + ": no config.json under " + snapshots
          + "; fetch it first (huggingface-cli download " + repo + " config.json) or give"
          + " --model-file PATH");
    }
    String id = repo.substring(repo.indexOf('/') + 1).toLowerCase(Locale.ROOT);
    return read(config, id, repo);
  }

  static Path hubCache(Map<String, String> env) {
    if (env.get("HF_HUB_CACHE") != null && !env.get("HF_HUB_CACHE").isBlank()) {
      return Path.of(env.get("HF_HUB_CACHE"));
    }
    if (env.get("HF_HOME") != null && !env.get("HF_HOME").isBlank()) {
      return Path.of(env.get("HF_HOME")).resolve("hub");
    }
    return Path.of(System.getProperty("user.home"), ".cache", "huggingface", "hub");
  }

  private static Path snapshotConfig(Path snapshots) {
    Path refs = snapshots.getParent().resolve("refs").resolve("main");
    try {
      if (Files.isRegularFile(refs)) {
        Path pinned = snapshots.resolve(Files.readString(refs).trim()).resolve("config.json");
        if (Files.isRegularFile(pinned)) {
          return pinned;
        }
      }
      if (!Files.isDirectory(snapshots)) {
        return null;
      }
      try (Stream<Path> revs = Files.list(snapshots)) {
        return revs.map(r -> r.resolve("config.json"))
            .filter(Files::isRegularFile)
            .max(Comparator.comparing(HfConfigs::modified))
            .orElse(null);
      }
    } catch (IOException e) {
      return null;
    }
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }

  private static String defaultName(Path file) {
    Path abs = file.toAbsolutePath().normalize();
    String fileName = abs.getFileName().toString();
    if (fileName.equals("config.json") && abs.getParent() != null
        && abs.getParent().getFileName() != null) {
      return abs.getParent().getFileName().toString();
    }
    return fileName.endsWith(".json") ? fileName.substring(0, fileName.length() - 5) : fileName;
  }

  private static ModelSpec read(Path file, String id, String name) {
    String prefix = "model file " + file + ": ";
    JsonNode root;
    try {
      root = MAPPER.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new SpecFiles.Invalid(prefix + "cannot read it as JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
    }
    if (!isHfConfig(root)) {
      throw new SpecFiles.Invalid(prefix + "not a Hugging Face config.json (no model_type)");
    }
    try {
      return HfShapes.map(root, id, name, file.toString());
    } catch (IllegalArgumentException e) {
      throw new SpecFiles.Invalid(prefix + e.getMessage());
    }
  }

  /**
   * The weight precision a config's {@code quantization_config} (else its {@code torch_dtype} or
   * {@code dtype}) says the checkpoint ships in.
   *
   * @throws IllegalArgumentException for a quantisation method the simulator does not know
   */
  static Precision weights(JsonNode root) {
    JsonNode q = root.get("quantization_config");
    if (q == null || q.isNull()) {
      JsonNode text = root.path("text_config");
      String dtype = root.path("torch_dtype").asText(root.path("dtype").asText(
          text.path("torch_dtype").asText("bfloat16")));
      return dtype.equals("float16") ? Precision.FP16 : Precision.BF16;
    }
    String method = q.path("quant_method").asText("").toLowerCase(Locale.ROOT);
    return switch (method) {
      case "fp8", "fbgemm_fp8" -> Precision.FP8;
      case "mxfp4" -> Precision.MXFP4;
      case "modelopt" -> modelopt(q.path("quant_algo").asText(""));
      case "awq", "gptq", "awq_marlin", "gptq_marlin" -> q.path("bits").asInt(4) == 8 ? Precision.INT8 : Precision.INT4;
      case "bitsandbytes" -> q.path("load_in_8bit").asBoolean(false) ? Precision.INT8 : Precision.INT4;
      case "compressed-tensors" -> compressedTensors(q);
      default -> throw new IllegalArgumentException("quantization_config.quant_method '" + method
          + "' is not one the simulator knows (fp8, mxfp4, modelopt, compressed-tensors, awq,"
          + " gptq, bitsandbytes); give --precision to say what the weights are");
    };
  }

  private static Precision modelopt(String algo) {
    return switch (algo.toUpperCase(Locale.ROOT)) {
      case "FP8" -> Precision.FP8;
      case "NVFP4" -> Precision.FP4;
      default -> throw new IllegalArgumentException("modelopt quant_algo '" + algo
          + "' is not one the simulator knows (FP8, NVFP4); give --precision");
    };
  }

  private static Precision compressedTensors(JsonNode q) {
    for (JsonNode group : q.path("config_groups")) {
      JsonNode w = group.path("weights");
      int bits = w.path("num_bits").asInt(0);
      boolean isFloat = w.path("type").asText("int").equals("float");
      if (bits == 4) {
        return isFloat ? Precision.FP4 : Precision.INT4;
      }
      if (bits == 8) {
        return isFloat ? Precision.FP8 : Precision.INT8;
      }
    }
    throw new IllegalArgumentException(
        "compressed-tensors config without 4- or 8-bit weights; give --precision");
  }

  /** {@code architectures[0]}, or empty. */
  static String family(JsonNode root) {
    JsonNode a = root.path("architectures");
    return a.isArray() && !a.isEmpty() ? a.get(0).asText("") : "";
  }
}
