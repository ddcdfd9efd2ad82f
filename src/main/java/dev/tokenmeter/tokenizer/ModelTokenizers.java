package dev.tokenmeter.tokenizer;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Which OpenAI encoding a hosted model name uses, after tiktoken's own table ({@code
 * tiktoken/model.py}, {@code MODEL_TO_ENCODING} and {@code MODEL_PREFIX_TO_ENCODING}): exact
 * names first, then the longest matching prefix, so {@code gpt-4o-2024-08-06} is {@code gpt-4o-}
 * and {@code gpt-4-0613} is {@code gpt-4-}. A provider prefix ({@code openai/gpt-4o}) and case are
 * ignored. Users extend it with {@link #with}. Immutable and thread-safe.
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

  private static final ModelTokenizers BUILT_IN = new ModelTokenizers(Map.of());

  private final Map<String, String> extra;

  private ModelTokenizers(Map<String, String> extra) {
    this.extra = Map.copyOf(extra);
  }

  /** tiktoken's table. */
  public static ModelTokenizers builtIn() {
    return BUILT_IN;
  }

  /**
   * This table plus {@code modelToSpec} (model name to any {@code --tokenizer} spec: an encoding,
   * a path, {@code hf:org/name}), which wins over the built-in entries.
   */
  public ModelTokenizers with(Map<String, String> modelToSpec) {
    Map<String, String> m = new LinkedHashMap<>(extra);
    modelToSpec.forEach((k, v) -> m.put(k.strip().toLowerCase(Locale.ROOT), v.strip()));
    return new ModelTokenizers(m);
  }

  /** The tokenizer spec for {@code model}, or empty when the model is unknown. */
  public Optional<String> specFor(String model) {
    if (model == null || model.isBlank()) {
      return Optional.empty();
    }
    String key = model.strip().toLowerCase(Locale.ROOT);
    if (extra.containsKey(key)) {
      return Optional.of(extra.get(key));
    }
    if (key.startsWith("openai/")) {
      key = key.substring("openai/".length());
    }
    String exact = EXACT.get(key);
    if (exact != null) {
      return Optional.of(exact);
    }
    String best = null;
    for (String prefix : PREFIX.keySet()) {
      if (key.startsWith(prefix) && (best == null || prefix.length() > best.length())) {
        best = prefix;
      }
    }
    return Optional.ofNullable(best == null ? null : PREFIX.get(best));
  }
}
