package dev.tokenmeter.tokenizer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns a {@code --tokenizer} spec into a {@link Tokenizer}, loading each one once:
 *
 * <ul>
 *   <li>an OpenAI encoding: {@code o200k_base}, {@code cl100k_base}, {@code p50k_base}, {@code
 *       r50k_base};
 *   <li>a path to a {@code tokenizer.json}, or to a model folder holding one;
 *   <li>{@code hf:org/name[@revision]}: the {@code tokenizer.json} of that Hugging Face model in
 *       the local hub cache ({@code $HF_HUB_CACHE}, else {@code $HF_HOME/hub}, else {@code
 *       $XDG_CACHE_HOME/huggingface/hub}, else {@code ~/.cache/huggingface/hub}), at the snapshot
 *       {@code refs/<revision>} names (default main), else (no revision) the newest snapshot that
 *       has one; else downloaded from {@code $HF_ENDPOINT} into that cache ({@link HubCache});
 *       offline, the error names the file to place where;
 *   <li>a hosted model name ({@code gpt-4o}, {@code gpt-4.1-mini}, ...) via {@link
 *       ModelTokenizers}.
 * </ul>
 *
 * Thread-safe; loaded tokenizers are cached by spec.
 */
public final class TokenizerResolver {
  private final HubCache hub;
  private final ModelTokenizers models;
  private final Map<String, Tokenizer> cache = new ConcurrentHashMap<>();

  /**
   * @param env environment variables: the cache location, HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE
   *     ({@code System.getenv()})
   * @param home the user's home folder
   * @param models model names to specs
   */
  public TokenizerResolver(Map<String, String> env, Path home, ModelTokenizers models) {
    this(env, home, models, HubCache.DEFAULT_TIMEOUT);
  }

  /** As the public constructor, with the connect and per-exchange timeout of downloads. */
  TokenizerResolver(Map<String, String> env, Path home, ModelTokenizers models, Duration timeout) {
    this.hub = new HubCache(env, Objects.requireNonNull(home, "home"), timeout);
    this.models = Objects.requireNonNull(models, "models");
  }

  /**
   * The process environment, the user's home, and the model table: built in, under the user's
   * default map file ({@link #defaultMapFile}) when there is one.
   */
  public static TokenizerResolver system() {
    return system(null);
  }

  /**
   * As {@link #system()}, with {@code mapFileOrNull} ({@code --tokenizer-map}) over the default
   * map file.
   *
   * @throws TokenizerException when a map file cannot be read
   */
  public static TokenizerResolver system(Path mapFileOrNull) {
    Map<String, String> env = System.getenv();
    Path home = Path.of(System.getProperty("user.home"));
    return new TokenizerResolver(env, home, models(env, home, mapFileOrNull));
  }

  /**
   * The model table for this environment: built in, under the default map file, under {@code
   * mapFileOrNull}.
   */
  static ModelTokenizers models(Map<String, String> env, Path home, Path mapFileOrNull) {
    ModelTokenizers m = ModelTokenizers.builtIn();
    Optional<Path> user = defaultMapFile(env, home);
    if (user.isPresent()) {
      m = m.with(user.get().toString(), ModelTokenizers.readFile(user.get()));
    }
    if (mapFileOrNull != null) {
      m = m.with(mapFileOrNull.toString(), ModelTokenizers.readFile(mapFileOrNull));
    }
    return m;
  }

  /**
   * The user's default map file: {@code $TOKENMETER_TOKENIZER_MAP} (which must exist), else {@code
   * $XDG_CONFIG_HOME/tokenmeter/tokenizers.json}, else {@code ~/.config/tokenmeter/tokenizers.json},
   * when present.
   */
  static Optional<Path> defaultMapFile(Map<String, String> env, Path home) {
    String explicit = env.get("TOKENMETER_TOKENIZER_MAP");
    if (explicit != null && !explicit.isBlank()) {
      Path p = Path.of(explicit);
      if (!Files.isRegularFile(p)) {
        throw new TokenizerException(
            "TOKENMETER_TOKENIZER_MAP names " + p + ", which does not exist; create it or unset it");
      }
      return Optional.of(p);
    }
    String xdg = env.get("XDG_CONFIG_HOME");
    Path config = xdg != null && !xdg.isBlank() ? Path.of(xdg) : home.resolve(".config");
    Path p = config.resolve("tokenmeter").resolve("tokenizers.json");
    return Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
  }

  /**
   * The tokenizer {@code spec} names.
   *
   * @throws TokenizerException naming what was looked for and where
   */
  public Tokenizer resolve(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new TokenizerException("empty tokenizer; " + FORMS);
    }
    return resolve(spec.strip(), 0);
  }

  /** Map entries may name other entries ({@code my-model → gpt-4o}); a cycle stops here. */
  private static final int MAX_ALIASES = 8;

  private Tokenizer resolve(String key, int aliases) {
    Tokenizer cached = cache.get(key);
    if (cached != null) {
      return cached;
    }
    if (aliases > MAX_ALIASES) {
      throw new TokenizerException(
          "tokenizer '" + key + "': more than " + MAX_ALIASES + " model-map entries lead to one"
              + " another (a cycle?); map the model to an encoding, a path or hf:org/name");
    }
    Tokenizer t = load(key, aliases);
    Tokenizer raced = cache.putIfAbsent(key, t);
    return raced == null ? t : raced;
  }

  /**
   * The tokenizer of a served model, when tokenmeter knows it without a download: a user's map
   * entry (loaded as {@code --tokenizer} would load it, so a bad entry throws); else the model's
   * own {@code tokenizer.json} in the Hugging Face cache (an {@code org/name} model); else the
   * built-in table, where a Hugging Face spec counts only when cached. Empty when none applies:
   * {@link #hintFor} then says what would help.
   */
  public Optional<Tokenizer> forModel(String model) {
    if (model == null || model.isBlank()) {
      return Optional.empty();
    }
    String name = model.strip();
    Optional<ModelTokenizers.Match> match = models.match(name);
    if (match.isPresent() && !match.get().builtIn()) {
      return Optional.of(resolve(match.get().spec()));
    }
    if (isRepoId(name) && hub.find(name, null).isPresent()) {
      return Optional.of(resolve("hf:" + name));
    }
    if (match.isPresent()) {
      String spec = match.get().spec();
      if (!spec.startsWith("hf:")) {
        return Optional.of(resolve(spec));
      }
      HfName hf = HfName.parse(spec);
      if (hf != null && hub.find(hf.repo(), hf.revision()).isPresent()) {
        return Optional.of(resolve(spec));
      }
    }
    return Optional.empty();
  }

  /**
   * When {@link #forModel} found nothing for {@code model}: a sentence on how to get its exact
   * tokenizer, or null when tokenmeter knows of none.
   */
  public String hintFor(String model) {
    Optional<ModelTokenizers.Match> match = models.match(model == null ? "" : model);
    if (match.isPresent() && match.get().spec().startsWith("hf:")) {
      String spec = match.get().spec();
      return model.strip() + " uses " + spec + ", which is not in the Hugging Face cache ("
          + hubCache() + "); pass --tokenizer " + spec + " once to download it (gated models need"
          + " HF_TOKEN)";
    }
    if (model != null && isRepoId(model.strip())) {
      return "pass --tokenizer hf:" + model.strip() + " to download its tokenizer.json, or map the"
          + " model in ~/.config/tokenmeter/tokenizers.json (docs/TOKENIZERS.md)";
    }
    return null;
  }

  /** {@code hf:org/name[@revision]}, parsed. */
  private record HfName(String repo, String revision) {
    private static final java.util.regex.Pattern REVISION =
        java.util.regex.Pattern.compile("[A-Za-z0-9._/-]{1,128}");

    /** The name, or null when {@code spec} is not a well-formed hf: spec. */
    static HfName parse(String spec) {
      String rest = spec.substring(3).strip();
      int at = rest.indexOf('@');
      String repo = at < 0 ? rest : rest.substring(0, at);
      String revision = at < 0 ? null : rest.substring(at + 1);
      if (!isRepoId(repo)
          || (revision != null
              && (!REVISION.matcher(revision).matches() || revision.contains("..")))) {
        return null;
      }
      return new HfName(repo, revision);
    }
  }

  private static final String FORMS =
      "use an OpenAI encoding (o200k_base, cl100k_base, p50k_base, r50k_base), a model name"
          + " (gpt-4o, gpt-4.1, o3, gpt-4, ...), a path to tokenizer.json or a model folder, or"
          + " hf:org/name[@revision] (from the Hugging Face cache, downloaded when missing)";

  private Tokenizer load(String spec, int aliases) {
    if (TiktokenTokenizer.NAMES.contains(spec.toLowerCase(Locale.ROOT))) {
      return Tokenizer.openAi(spec);
    }
    if (spec.startsWith("hf:")) {
      HfName hf = HfName.parse(spec);
      if (hf == null) {
        throw new TokenizerException(
            "'" + spec + "': expected hf:org/name or hf:org/name@revision, e.g."
                + " hf:meta-llama/Llama-3.1-8B-Instruct");
      }
      return Tokenizer.huggingFace(hub.fetch(hf.repo(), hf.revision()), spec);
    }
    Path path = Path.of(spec);
    if (Files.exists(path)) {
      return Tokenizer.huggingFace(path, spec);
    }
    Optional<String> mapped = models.specFor(spec);
    if (mapped.isPresent() && !mapped.get().equals(spec)) {
      return resolve(mapped.get(), aliases + 1);
    }
    if (spec.endsWith(".json") || spec.contains(java.io.File.separator)) {
      throw new TokenizerException(
          "tokenizer file not found: " + spec + " (looked at " + path.toAbsolutePath() + ")");
    }
    throw new TokenizerException("unknown tokenizer '" + spec + "'; " + FORMS);
  }

  /** The hub cache folder, by the precedence huggingface_hub uses. */
  Path hubCache() {
    return hub.root();
  }

  private static boolean isRepoId(String s) {
    int slash = s.indexOf('/');
    return slash > 0 && slash == s.lastIndexOf('/') && slash < s.length() - 1
        && s.chars().noneMatch(Character::isWhitespace);
  }
}
