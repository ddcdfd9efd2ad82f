package dev.tokenmeter.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which tokenizer a served model name uses. Built in: OpenAI's encodings after tiktoken's own
 * table ({@code tiktoken/model.py}, {@code MODEL_TO_ENCODING} and {@code
 * MODEL_PREFIX_TO_ENCODING}): exact names first, then the longest matching prefix, so {@code
 * gpt-4o-2024-08-06} is {@code gpt-4o-} and {@code gpt-4-0613} is {@code gpt-4-}; a provider prefix
 * ({@code openai/gpt-4o}) is ignored; and a few open-model families whose members share one
 * tokenizer ({@code meta-llama/Llama-3.1-*} is {@code hf:meta-llama/Llama-3.1-8B-Instruct}).
 *
 * <p>Users add layers with {@link #with}, from {@code tokenizers.json} files ({@link #readFile}):
 * the latest layer is asked first. In a layer, an exact name wins, then the glob ({@code *} is any
 * run of characters) with the most literal characters, then the one listed first. Case is ignored
 * everywhere. Immutable and thread-safe.
 */
public final class ModelTokenizers {
  private static final Map<String, String> EXACT = new LinkedHashMap<>();
  private static final Map<String, String> PREFIX = new LinkedHashMap<>();

  static {
    for (String m : new String[] {"o1", "o3", "o4-mini", "gpt-5", "gpt-4.1", "gpt-4.5", "gpt-4o",
        "chatgpt-4o-latest", "gpt-oss-20b", "gpt-oss-120b"}) {
      EXACT.put(m, "o200k_base");
    }
    for (String m : new String[] {"gpt-4", "gpt-3.5-turbo", "gpt-3.5", "gpt-35-turbo",
        "davinci-002", "babbage-002", "text-embedding-ada-002", "text-embedding-3-small",
        "text-embedding-3-large"}) {
      EXACT.put(m, "cl100k_base");
    }
    for (String m : new String[] {"text-davinci-003", "text-davinci-002", "code-davinci-002",
        "code-davinci-001", "code-cushman-002", "code-cushman-001"}) {
      EXACT.put(m, "p50k_base");
    }
    for (String m : new String[] {"text-davinci-001", "text-curie-001", "text-babbage-001",
        "text-ada-001", "davinci", "curie", "babbage", "ada", "gpt2", "gpt-2"}) {
      EXACT.put(m, "r50k_base");
    }
    // gpt-oss uses o200k_harmony: o200k_base plus special tokens, the same ids for plain text.
    for (String p : new String[] {"o1-", "o3-", "o4-mini-", "gpt-5-", "gpt-5.", "gpt-4.5-",
        "gpt-4.1-", "chatgpt-4o-", "gpt-4o-", "gpt-oss-", "ft:gpt-4o"}) {
      PREFIX.put(p, "o200k_base");
    }
    for (String p : new String[] {"gpt-4-", "gpt-3.5-turbo-", "gpt-35-turbo-", "ft:gpt-4",
        "ft:gpt-3.5-turbo", "ft:davinci-002", "ft:babbage-002"}) {
      PREFIX.put(p, "cl100k_base");
    }
  }

  /** Open-model families that share one tokenizer, as globs (matched after the user's layers). */
  private static final Map<String, String> OPEN_MODELS = new LinkedHashMap<>();

  static {
    // Every Llama 3.1 size and variant has the same 128,256-token vocabulary and pre-tokenizer.
    OPEN_MODELS.put("meta-llama/llama-3.1-*", "hf:meta-llama/Llama-3.1-8B-Instruct");
    OPEN_MODELS.put("meta-llama/meta-llama-3.1-*", "hf:meta-llama/Llama-3.1-8B-Instruct");
  }

  private static final Layer OPEN_LAYER = Layer.of("built-in", OPEN_MODELS);
  private static final ModelTokenizers BUILT_IN = new ModelTokenizers(List.of());

  /**
   * Where a model's spec came from.
   *
   * @param spec a {@code --tokenizer} spec: an encoding, a path, {@code hf:org/name}, a model name
   * @param source {@code built-in}, or the file (or "user") of the layer that matched
   * @param pattern the name or glob that matched
   */
  public record Match(String spec, String source, String pattern) {
    /** True when the built-in table matched, not a user's layer. */
    public boolean builtIn() {
      return source.equals("built-in");
    }
  }

  private final List<Layer> layers; // latest first

  private ModelTokenizers(List<Layer> layers) {
    this.layers = List.copyOf(layers);
  }

  /** The built-in table. */
  public static ModelTokenizers builtIn() {
    return BUILT_IN;
  }

  /** This table under a layer of {@code modelToSpec} (names or globs to specs), labelled "user". */
  public ModelTokenizers with(Map<String, String> modelToSpec) {
    return with("user", modelToSpec);
  }

  /** This table under a layer of {@code modelToSpec}, labelled {@code source} (a file name). */
  public ModelTokenizers with(String source, Map<String, String> modelToSpec) {
    List<Layer> l = new ArrayList<>();
    l.add(Layer.of(source, modelToSpec));
    l.addAll(layers);
    return new ModelTokenizers(l);
  }

  /** The tokenizer spec for {@code model}, or empty when the model is unknown. */
  public Optional<String> specFor(String model) {
    return match(model).map(Match::spec);
  }

  /** The spec for {@code model} and where it came from, or empty when the model is unknown. */
  public Optional<Match> match(String model) {
    if (model == null || model.isBlank()) {
      return Optional.empty();
    }
    String key = model.strip().toLowerCase(Locale.ROOT);
    for (Layer layer : layers) {
      Optional<Match> m = layer.match(key);
      if (m.isPresent()) {
        return m;
      }
    }
    String openAi = key.startsWith("openai/") ? key.substring("openai/".length()) : key;
    String exact = EXACT.get(openAi);
    if (exact != null) {
      return Optional.of(new Match(exact, "built-in", openAi));
    }
    String best = null;
    for (String prefix : PREFIX.keySet()) {
      if (openAi.startsWith(prefix) && (best == null || prefix.length() > best.length())) {
        best = prefix;
      }
    }
    if (best != null) {
      return Optional.of(new Match(PREFIX.get(best), "built-in", best + "*"));
    }
    return OPEN_LAYER.match(key);
  }

  /**
   * Reads a {@code tokenizers.json}: one JSON object of model name or glob to spec, e.g. {@code
   * {"meta-llama/Llama-3.1-*": "hf:meta-llama/Llama-3.1-8B-Instruct", "my-model":
   * "./tok/tokenizer.json"}}. A spec that starts with {@code ./} or {@code ../}, or a relative one
   * ending in {@code .json}, is a path relative to the file's folder.
   *
   * @throws TokenizerException naming the file and the problem
   */
  public static Map<String, String> readFile(Path file) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(Files.readString(file));
    } catch (NoSuchFileException e) {
      throw new TokenizerException("tokenizer map not found: " + file);
    } catch (IOException e) {
      throw new TokenizerException(
          "tokenizer map " + file + " is not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (root == null || !root.isObject()) {
      throw new TokenizerException(
          "tokenizer map " + file + " must be one JSON object of model name or glob to tokenizer,"
              + " e.g. {\"meta-llama/Llama-3.1-*\": \"hf:meta-llama/Llama-3.1-8B-Instruct\"}");
    }
    Map<String, String> map = new LinkedHashMap<>();
    Path dir = file.toAbsolutePath().getParent();
    for (Map.Entry<String, JsonNode> e : root.properties()) {
      if (!e.getValue().isTextual() || e.getValue().asText().isBlank() || e.getKey().isBlank()) {
        throw new TokenizerException(
            "tokenizer map " + file + ": \"" + e.getKey() + "\" must map to a tokenizer spec string");
      }
      map.put(e.getKey(), relativeTo(dir, e.getValue().asText().strip()));
    }
    return map;
  }

  private static String relativeTo(Path dir, String spec) {
    boolean relative =
        spec.startsWith("./") || spec.startsWith("../")
            || (spec.endsWith(".json") && !spec.startsWith("hf:") && !Path.of(spec).isAbsolute());
    return relative && dir != null ? dir.resolve(spec).normalize().toString() : spec;
  }

  /** One table: exact names, then globs by literal length, then order. */
  private record Layer(String source, Map<String, String> exact, List<Glob> globs) {
    static Layer of(String source, Map<String, String> modelToSpec) {
      Map<String, String> exact = new LinkedHashMap<>();
      List<Glob> globs = new ArrayList<>();
      modelToSpec.forEach(
          (k, v) -> {
            String key = k.strip().toLowerCase(Locale.ROOT);
            if (key.contains("*")) {
              globs.add(new Glob(key, glob(key), key.replace("*", "").length(), v.strip()));
            } else {
              exact.put(key, v.strip());
            }
          });
      // Stable: equal literal lengths keep their order.
      globs.sort(Comparator.comparingInt(Glob::literalChars).reversed());
      return new Layer(source, exact, globs);
    }

    Optional<Match> match(String key) {
      String e = exact.get(key);
      if (e != null) {
        return Optional.of(new Match(e, source, key));
      }
      for (Glob g : globs) {
        if (g.regex().matcher(key).matches()) {
          return Optional.of(new Match(g.spec(), source, g.pattern()));
        }
      }
      return Optional.empty();
    }

    private static Pattern glob(String pattern) {
      StringBuilder re = new StringBuilder();
      String[] parts = pattern.split("\\*", -1);
      for (int i = 0; i < parts.length; i++) {
        re.append(i > 0 ? ".*" : "").append(Pattern.quote(parts[i]));
      }
      return Pattern.compile(re.toString(), Pattern.DOTALL);
    }
  }

  private record Glob(String pattern, Pattern regex, int literalChars, String spec) {}
}
