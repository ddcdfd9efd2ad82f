package dev.tokenmeter.tokenizer;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The Hugging Face hub cache on disk ({@code huggingface_hub}'s layout, so Python tools and
 * tokenmeter share files), and downloads of {@code tokenizer.json} into it.
 *
 * <pre>
 * $HF_HUB_CACHE/models--org--name/
 *   refs/main                          the commit "main" points to
 *   snapshots/&lt;commit&gt;/tokenizer.json
 * </pre>
 *
 * <p>Environment (injected, never read from the process here): {@code HF_HUB_CACHE}, {@code
 * HF_HOME}, {@code XDG_CACHE_HOME} (where), {@code HF_ENDPOINT} (the hub, default {@code
 * https://huggingface.co}), {@code HF_TOKEN} (sent as {@code Authorization: Bearer} to the hub's
 * own host only, never to the CDN it redirects to), {@code HF_HUB_OFFLINE=1} (never download).
 * Thread-safe; concurrent downloads of one file both write whole files and the last rename wins.
 */
final class HubCache {
  /* design notes
   * Redirects are followed by hand: the hub answers large (LFS/Xet) files with a 302 to a
   * pre-signed CDN URL, which rejects a second auth mechanism, so Authorization goes only to the
   * hub's host (huggingface_hub does the same). A 200 body is checked to be a JSON object with a
   * "model" field before it enters the cache: an HTML error page behind a captive portal must not
   * be cached as a tokenizer. Files are written to a temporary name in the target folder and
   * renamed, so a reader never sees half a file.
   */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
  private static final String DEFAULT_ENDPOINT = "https://huggingface.co";
  private static final int MAX_REDIRECTS = 5;

  private final Map<String, String> env;
  private final Path root;
  private final Duration timeout;

  /**
   * @param env the environment to read
   * @param home the user's home folder
   * @param timeout connect timeout, and the limit on each HTTP exchange
   */
  HubCache(Map<String, String> env, Path home, Duration timeout) {
    this.env = Map.copyOf(env);
    this.root = root(this.env, home);
    this.timeout = timeout;
  }

  /** The hub cache folder, by the precedence huggingface_hub uses. */
  Path root() {
    return root;
  }

  private static Path root(Map<String, String> env, Path home) {
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

  Path repoFolder(String repo) {
    return root.resolve("models--" + repo.replace("/", "--"));
  }

  /**
   * The cached {@code tokenizer.json} of {@code repo} at {@code revision} (a branch, tag or
   * commit; null: {@code refs/main}, else the newest snapshot that has one).
   */
  Optional<Path> find(String repo, String revision) {
    Path folder = repoFolder(repo);
    Path snapshots = folder.resolve("snapshots");
    try {
      String rev = revision == null ? "main" : revision;
      Path ref = folder.resolve("refs").resolve(rev);
      if (Files.isRegularFile(ref)) {
        Path file = snapshots.resolve(Files.readString(ref).strip()).resolve("tokenizer.json");
        if (Files.isRegularFile(file)) {
          return Optional.of(file);
        }
      }
      Path direct = snapshots.resolve(rev).resolve("tokenizer.json"); // a commit, or a copied folder
      if (Files.isRegularFile(direct)) {
        return Optional.of(direct);
      }
      if (revision != null || !Files.isDirectory(snapshots)) {
        return Optional.empty();
      }
      List<Path> found = new ArrayList<>();
      try (Stream<Path> s = Files.list(snapshots)) {
        s.map(p -> p.resolve("tokenizer.json")).filter(Files::isRegularFile).forEach(found::add);
      }
      return found.stream().max(Comparator.comparing(HubCache::modified));
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

  /**
   * The cached file, else downloaded into the cache, else a {@link TokenizerException} that says
   * which file to place where.
   */
  Path fetch(String repo, String revision) {
    Optional<Path> cached = find(repo, revision);
    if (cached.isPresent()) {
      return cached.get();
    }
    if (offline()) {
      throw notCached(repo, revision, "HF_HUB_OFFLINE is set, so tokenmeter does not download");
    }
    return download(repo, revision == null ? "main" : revision);
  }

  private boolean offline() {
    String v = env.getOrDefault("HF_HUB_OFFLINE", "").strip().toLowerCase(Locale.ROOT);
    return v.equals("1") || v.equals("true") || v.equals("yes") || v.equals("on");
  }

  private String endpoint() {
    String e = env.get("HF_ENDPOINT");
    e = e == null || e.isBlank() ? DEFAULT_ENDPOINT : e.strip();
    return e.endsWith("/") ? e.substring(0, e.length() - 1) : e;
  }

  private Path download(String repo, String revision) {
    URI url = URI.create(endpoint() + "/" + repo + "/resolve/" + revision + "/tokenizer.json");
    HttpResponse<byte[]> response = get(repo, revision, url);
    int status = response.statusCode();
    if (status == 401 || status == 403) {
      String token = env.get("HF_TOKEN");
      throw new TokenizerException(
          "hf:" + repo + ": HTTP " + status + " from " + url + ": the model is gated or private. "
              + (token == null || token.isBlank()
                  ? "Accept its license on its Hugging Face page, then set HF_TOKEN to an access"
                      + " token with read access"
                  : "HF_TOKEN was sent and refused: accept the model's license with that account,"
                      + " or use a token with read access")
              + "; or pass --tokenizer path/to/tokenizer.json");
    }
    if (status == 404) {
      throw new TokenizerException(
          "hf:" + repo + ": no tokenizer.json at revision " + revision + " (HTTP 404 from " + url
              + "); check the name, or pass --tokenizer path/to/tokenizer.json");
    }
    if (status != 200) {
      throw new TokenizerException(
          "hf:" + repo + ": HTTP " + status + " from " + url + "; try again later, or place the file"
              + " by hand: " + placeHint(repo, revision));
    }
    byte[] body = response.body();
    checkTokenizerJson(repo, url, body);
    String commit = response.headers().firstValue("X-Repo-Commit").orElse(revision).strip();
    return store(repo, revision, commit, body);
  }

  /** GET {@code url}, following up to 5 redirects; Authorization only to the hub's own host. */
  private HttpResponse<byte[]> get(String repo, String revision, URI url) {
    HttpClient client =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    String hubHost = URI.create(endpoint()).getHost();
    String token = env.get("HF_TOKEN");
    URI at = url;
    try {
      for (int hop = 0; ; hop++) {
        HttpRequest.Builder b = HttpRequest.newBuilder(at).timeout(timeout).GET();
        b.header("User-Agent", "tokenmeter");
        if (token != null && !token.isBlank() && hubHost != null && hubHost.equals(at.getHost())) {
          b.header("Authorization", "Bearer " + token.strip());
        }
        HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        Optional<String> location = r.headers().firstValue("Location");
        if (r.statusCode() / 100 != 3 || location.isEmpty() || hop == MAX_REDIRECTS) {
          return r;
        }
        at = at.resolve(location.get());
      }
    } catch (HttpTimeoutException e) {
      throw unreachable(repo, revision, "no answer within " + timeout.toSeconds() + " s", e);
    } catch (IOException e) {
      throw unreachable(repo, revision, e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unreachable(repo, revision, "interrupted", e);
    } finally {
      client.close();
    }
  }

  /** Rejects a body that is not a JSON object with a top-level "model" (an HTML page, a stub). */
  private static void checkTokenizerJson(String repo, URI url, byte[] body) {
    try (JsonParser p = new JsonFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        if (p.currentName().equals("model")) {
          return;
        }
        p.nextToken();
        p.skipChildren();
      }
      throw new IOException("no \"model\" field");
    } catch (IOException e) {
      throw new TokenizerException(
          "hf:" + repo + ": " + url + " did not send a tokenizer.json (" + e.getMessage()
              + "); a proxy or captive portal? Nothing was cached");
    }
  }

  /** Writes the snapshot file, then the ref, each by an atomic rename. */
  private Path store(String repo, String revision, String commit, byte[] body) {
    Path folder = repoFolder(repo);
    Path file = folder.resolve("snapshots").resolve(commit).resolve("tokenizer.json");
    try {
      writeAtomically(file, body);
      if (!revision.equals(commit)) {
        writeAtomically(folder.resolve("refs").resolve(revision), commit.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new TokenizerException(
          "hf:" + repo + ": downloaded, but cannot write " + file + ": " + e.getMessage()
              + "; set HF_HUB_CACHE to a writable folder", e);
    }
    return file;
  }

  private static void writeAtomically(Path target, byte[] bytes) throws IOException {
    Files.createDirectories(target.getParent());
    Path tmp = Files.createTempFile(target.getParent(), ".tokenmeter-", ".part");
    try {
      Files.write(tmp, bytes);
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private TokenizerException unreachable(String repo, String revision, String why, Exception e) {
    return new TokenizerException(
        "hf:" + repo + ": cannot reach " + endpoint() + " (" + why + ") and the Hugging Face cache"
            + " has no tokenizer.json for it. " + placeHint(repo, revision), e);
  }

  TokenizerException notCached(String repo, String revision, String why) {
    return new TokenizerException(
        "hf:" + repo + ": no tokenizer.json in the Hugging Face cache (looked in "
            + repoFolder(repo).resolve("snapshots") + ") and " + why + ". " + placeHint(repo, revision));
  }

  /** Which file to place where, and the other ways out. */
  private String placeHint(String repo, String revision) {
    String rev = revision == null ? "main" : revision;
    return "Place the model's tokenizer.json at "
        + repoFolder(repo).resolve("snapshots").resolve(rev).resolve("tokenizer.json")
        + " (any snapshot folder name works), run 'huggingface-cli download " + repo
        + " tokenizer.json' where the hub is reachable and copy the cache (or set HF_HOME /"
        + " HF_HUB_CACHE to it), set HF_ENDPOINT to a reachable mirror, or pass --tokenizer"
        + " path/to/tokenizer.json";
  }
}
