package dev.tokenmeter.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hf:} downloads against a hub on 127.0.0.1 (HF_ENDPOINT): into the cache layout, then from
 * the cache with no request; gated models, redirects to a CDN, offline and unreachable hubs.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class HubDownloadTest {
  private static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";

  @TempDir Path tmp;
  private HttpServer server;
  private String endpoint;
  private byte[] tokenizerJson;
  /** "METHOD path auth-header-or-none" per request, in order. */
  private final List<String> requests = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startHub() throws IOException {
    tokenizerJson = Files.readAllBytes(TestTokenizers.hfFile("llama3"));
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    int port = server.getAddress().getPort();
    endpoint = "http://127.0.0.1:" + port;
    server.createContext("/", this::handle);
    server.start();
  }

  @AfterEach
  void stopHub() {
    server.stop(0);
  }

  private void handle(HttpExchange x) throws IOException {
    String path = x.getRequestURI().getPath();
    String auth = x.getRequestHeaders().getFirst("Authorization");
    requests.add(x.getRequestMethod() + " " + path + " " + (auth == null ? "none" : auth));
    int port = server.getAddress().getPort();
    switch (path) {
      case "/acme/open/resolve/main/tokenizer.json" -> {
        x.getResponseHeaders().add("X-Repo-Commit", COMMIT);
        send(x, 200, tokenizerJson);
      }
      case "/acme/gated/resolve/main/tokenizer.json" -> {
        if (!"Bearer s3cret".equals(auth)) {
          send(x, 401, "{\"error\":\"Access to model acme/gated is restricted\"}".getBytes(StandardCharsets.UTF_8));
        } else {
          // Like the hub's LFS answers: a redirect to another host (localhost is not 127.0.0.1).
          x.getResponseHeaders().add("X-Repo-Commit", COMMIT);
          x.getResponseHeaders().add("Location", "http://localhost:" + port + "/cdn/blob?sig=1");
          send(x, 302, new byte[0]);
        }
      }
      case "/cdn/blob" -> send(x, 200, tokenizerJson);
      case "/acme/portal/resolve/main/tokenizer.json" ->
          send(x, 200, "<html>log in to the wifi</html>".getBytes(StandardCharsets.UTF_8));
      default -> send(x, 404, new byte[0]);
    }
  }

  private static void send(HttpExchange x, int status, byte[] body) throws IOException {
    x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      x.getResponseBody().write(body);
    }
    x.close();
  }

  private TokenizerResolver resolver(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>();
    env.put("HF_HOME", tmp.resolve("hf").toString());
    env.put("HF_ENDPOINT", endpoint);
    env.putAll(extra);
    return new TokenizerResolver(env, tmp, ModelTokenizers.builtIn(), Duration.ofSeconds(5));
  }

  @Test
  void aDownloadLandsInTheCacheLayoutAndTheNextResolveNeedsNoNetwork() throws IOException {
    Tokenizer t = resolver(Map.of()).resolve("hf:acme/open");
    assertThat(t.encode("Hello world")).containsExactly(9906, 1917);
    Path repo = tmp.resolve("hf/hub/models--acme--open");
    assertThat(repo.resolve("snapshots/" + COMMIT + "/tokenizer.json")).hasBinaryContent(tokenizerJson);
    assertThat(repo.resolve("refs/main")).hasContent(COMMIT);
    try (var files = Files.walk(repo)) {
      assertThat(files.map(Path::toString)).noneMatch(f -> f.endsWith(".part")); // no leftovers
    }
    assertThat(requests).containsExactly("GET /acme/open/resolve/main/tokenizer.json none");

    // A fresh resolver (a new process) finds it in the cache, offline or not: no second request.
    assertThat(resolver(Map.of()).resolve("hf:acme/open").count("Hello world")).isEqualTo(2);
    assertThat(resolver(Map.of("HF_HUB_OFFLINE", "1")).resolve("hf:acme/open@main").count("Hi")).isEqualTo(1);
    assertThat(requests).hasSize(1);
  }

  @Test
  void gatedModelsNeedHfTokenWhichNeverLeavesTheHubsHost() {
    assertThatThrownBy(() -> resolver(Map.of()).resolve("hf:acme/gated"))
        .isInstanceOf(TokenizerException.class)
        .hasMessageContaining("HTTP 401")
        .hasMessageContaining("gated or private")
        .hasMessageContaining("set HF_TOKEN");
    assertThatThrownBy(() -> resolver(Map.of("HF_TOKEN", "wrong")).resolve("hf:acme/gated"))
        .hasMessageContaining("HF_TOKEN was sent and refused");

    requests.clear();
    Tokenizer t = resolver(Map.of("HF_TOKEN", "s3cret")).resolve("hf:acme/gated");
    assertThat(t.count("Hello world")).isEqualTo(2);
    assertThat(requests)
        .containsExactly(
            "GET /acme/gated/resolve/main/tokenizer.json Bearer s3cret",
            "GET /cdn/blob none");
  }

  @Test
  void offlineAndUnreachableHubsSayWhichFileToPlaceWhere() {
    String place = tmp.resolve("hf/hub/models--acme--open/snapshots/main/tokenizer.json").toString();
    assertThatThrownBy(() -> resolver(Map.of("HF_HUB_OFFLINE", "1")).resolve("hf:acme/open"))
        .hasMessageContaining("HF_HUB_OFFLINE is set")
        .hasMessageContaining("Place the model's tokenizer.json at " + place);
    assertThat(requests).isEmpty();

    // Port 1 on loopback: nothing listens, the connect is refused at once.
    assertThatThrownBy(() -> resolver(Map.of("HF_ENDPOINT", "http://127.0.0.1:1")).resolve("hf:acme/open"))
        .isInstanceOf(TokenizerException.class)
        .hasMessageContaining("cannot reach http://127.0.0.1:1")
        .hasMessageContaining("Place the model's tokenizer.json at " + place)
        .hasMessageContaining("huggingface-cli download acme/open tokenizer.json");
  }

  @Test
  void missingFilesAndNonTokenizerBodiesAreNotCached() {
    assertThatThrownBy(() -> resolver(Map.of()).resolve("hf:acme/none@v2"))
        .hasMessageContaining("no tokenizer.json at revision v2 (HTTP 404");
    assertThatThrownBy(() -> resolver(Map.of()).resolve("hf:acme/portal"))
        .hasMessageContaining("did not send a tokenizer.json")
        .hasMessageContaining("Nothing was cached");
    assertThat(tmp.resolve("hf/hub/models--acme--portal")).doesNotExist();
    assertThatThrownBy(() -> resolver(Map.of()).resolve("hf:acme/open@../../etc"))
        .hasMessageContaining("expected hf:org/name or hf:org/name@revision");
  }
}
