package dev.tokenmeter.tokenizer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Turns a {@code --tokenizer} spec into a {@link Tokenizer}, loading each one once:
 *
 * <ul>
 *   <li>an OpenAI encoding: {@code o200k_base}, {@code cl100k_base}, {@code p50k_base}, {@code
 *       r50k_base};
 *   <li>a path to a {@code tokenizer.json}, or to a model folder holding one;
 *   <li>{@code hf:org/name}: the {@code tokenizer.json} of that Hugging Face model in the local
 *       hub cache ({@code $HF_HUB_CACHE}, else {@code $HF_HOME/hub}, else {@code
 *       $XDG_CACHE_HOME/huggingface/hub}, else {@code ~/.cache/huggingface/hub}), at the snapshot
 *       {@code refs/main} names, else the newest snapshot that has one. tokenmeter does not
 *       download: when the file is missing, the error names the file to place where;
 *   <li>a hosted model name ({@code gpt-4o}, {@code gpt-4.1-mini}, ...) via {@link
 *       ModelTokenizers}.
 * </ul>
 *
 * Thread-safe; loaded tokenizers are cached by spec.
 */
public final class TokenizerResolver {
  private final Map<String, String> env;
  private final Path home;
  private final ModelTokenizers models;
  private final Map<String, Tokenizer> cache = new ConcurrentHashMap<>();

  /**
   * @param env environment variables to read the cache location from ({@code System.getenv()})
   * @param home the user's home folder
   * @param models model names to specs
   */
  public TokenizerResolver(Map<String, String> env, Path home, ModelTokenizers models) {
    this.env = Map.copyOf(env);
    this.home = Objects.requireNonNull(home, "home");
    this.models = Objects.requireNonNull(models, "models");
  }

  /** The process environment, the user's home and the built-in model table. */
  public static TokenizerResolver system() {
    return new TokenizerResolver(
        System.getenv(), Path.of(System.getProperty("user.home")), ModelTokenizers.builtIn());
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
    String key = spec.strip();
    Tokenizer cached = cache.get(key);
    if (cached != null) {
      return cached;
    }
    Tokenizer t = load(key);
    Tokenizer raced = cache.putIfAbsent(key, t);
    return raced == null ? t : raced;
  }

  /**
   * The tokenizer of a served model, when tokenmeter knows it: the model table, then (for an
   * {@code org/name} model) the Hugging Face cache. Empty when neither knows the model; a known
   * spec that fails to load still throws.
   */
  public Optional<Tokenizer> forModel(String model) {
    if (model == null || model.isBlank()) {
      return Optional.empty();
    }
    Optional<String> spec = models.specFor(model);
    if (spec.isPresent()) {
      return Optional.of(resolve(spec.get()));
    }
    if (isRepoId(model.strip()) && findInHubCache(model.strip()).isPresent()) {
      return Optional.of(resolve("hf:" + model.strip()));
    }
    return Optional.empty();
  }

  private static final String FORMS =
      "use an OpenAI encoding (o200k_base, cl100k_base, p50k_base, r50k_base), a model name"
          + " (gpt-4o, gpt-4.1, o3, gpt-4, ...), a path to tokenizer.json or a model folder, or"
          + " hf:org/name from the local Hugging Face cache";

  private Tokenizer load(String spec) {
    if (TiktokenTokenizer.NAMES.contains(spec.toLowerCase(Locale.ROOT))) {
      return Tokenizer.openAi(spec);
    }
    if (spec.startsWith("hf:")) {
      String repo = spec.substring(3).strip();
      if (!isRepoId(repo)) {
        throw new TokenizerException(
            "'" + spec + "': expected hf:org/name, e.g. hf:meta-llama/Llama-3.1-8B-Instruct");
      }
      Path file = findInHubCache(repo).orElseThrow(() -> notInCache(repo));
      return Tokenizer.huggingFace(file, spec);
    }
    Path path = Path.of(spec);
    if (Files.exists(path)) {
      return Tokenizer.huggingFace(path, spec);
    }
    Optional<String> mapped = models.specFor(spec);
    if (mapped.isPresent() && !mapped.get().equals(spec)) {
      return resolve(mapped.get());
    }
    if (spec.endsWith(".json") || spec.contains(java.io.File.separator)) {
      throw new TokenizerException(
          "tokenizer file not found: " + spec + " (looked at " + path.toAbsolutePath() + ")");
    }
    throw new TokenizerException("unknown tokenizer '" + spec + "'; " + FORMS);
  }

  /** The hub cache folder, by the precedence huggingface_hub uses. */
  Path hubCache() {
    String hubCache = env.get("HF_HUB_CACHE");
    if (hubCache != null && !hubCache.isBlank()) {
      return Path.of(hubCache);
    }
    String hfHome = env.get("HF_HOME");
    if (hfHome != null && !hfHome.isBlank()) {
      return Path.of(hfHome, "hub");
    }
    String xdg = env.get("XDG_CACHE_HOME");
    if (xdg != null && !xdg.isBlank()) {
      return Path.of(xdg, "huggingface", "hub");
    }
    return home.resolve(".cache").resolve("huggingface").resolve("hub");
  }

  private Path repoFolder(String repo) {
    return hubCache().resolve("models--" + repo.replace("/", "--"));
  }

  private Optional<Path> findInHubCache(String repo) {
    Path folder = repoFolder(repo);
    Path snapshots = folder.resolve("snapshots");
    try {
      Path ref = folder.resolve("refs").resolve("main");
      if (Files.isRegularFile(ref)) {
        Path file = snapshots.resolve(Files.readString(ref).strip()).resolve("tokenizer.json");
        if (Files.isRegularFile(file)) {
          return Optional.of(file);
        }
      }
      if (!Files.isDirectory(snapshots)) {
        return Optional.empty();
      }
      List<Path> found = new ArrayList<>();
      try (Stream<Path> s = Files.list(snapshots)) {
        s.map(p -> p.resolve("tokenizer.json")).filter(Files::isRegularFile).forEach(found::add);
      }
      return found.stream().max(Comparator.comparing(TokenizerResolver::modified));
    } catch (IOException e) {
      throw new TokenizerException("cannot read the Hugging Face cache " + folder + ": " + e, e);
    }
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis();
    } catch (IOException e) {
      return Long.MIN_VALUE;
    }
  }

  private TokenizerException notInCache(String repo) {
    Path folder = repoFolder(repo);
    return new TokenizerException(
        "hf:" + repo + ": no tokenizer.json in the Hugging Face cache (looked in "
            + folder.resolve("snapshots")
            + "). tokenmeter does not download. Either place the model's tokenizer.json at "
            + folder.resolve("snapshots").resolve("main").resolve("tokenizer.json")
            + " (any snapshot folder name works), run 'huggingface-cli download " + repo
            + " tokenizer.json' where the hub is reachable and copy the cache (or set HF_HOME /"
            + " HF_HUB_CACHE to it), or pass --tokenizer path/to/tokenizer.json");
  }

  private static boolean isRepoId(String s) {
    int slash = s.indexOf('/');
    return slash > 0 && slash == s.lastIndexOf('/') && slash < s.length() - 1
        && s.chars().noneMatch(Character::isWhitespace);
  }
}
