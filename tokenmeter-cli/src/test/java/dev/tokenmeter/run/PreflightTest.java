package dev.tokenmeter.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.EndpointConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The pre-flight of each API against a small local server that answers the listings it is given. */
class PreflightTest {
  private HttpServer server;
  private final Map<String, String> bodies = new ConcurrentHashMap<>();
  private final Map<String, String> headersSeen = new ConcurrentHashMap<>();
  private int status = 200;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", x -> {
      x.getRequestHeaders().forEach((k, v) -> headersSeen.put(k.toLowerCase(), v.get(0)));
      String body = bodies.get(x.getRequestURI().getPath());
      byte[] b = (body == null ? "{\"detail\":\"Not Found\"}" : body).getBytes(StandardCharsets.UTF_8);
      x.sendResponseHeaders(body == null ? 404 : status, b.length);
      try (OutputStream out = x.getResponseBody()) {
        out.write(b);
      }
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private EndpointConfig config(Api api, String key) {
    URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    return new EndpointConfig(url, api, null, key, Map.of(), null, true, true, 2000);
  }

  private Preflight.Result check(Api api, String key) {
    return Preflight.check(config(api, key), Duration.ofSeconds(5));
  }

  @Test
  void eachApiReadsItsOwnListing() {
    bodies.put("/v1/models", "{\"data\":[{\"type\":\"model\",\"id\":\"claude-sonnet-4-5\"}]}");
    assertThat(check(Api.ANTHROPIC, "k1").models()).containsExactly("claude-sonnet-4-5");
    assertThat(headersSeen).containsEntry("x-api-key", "k1").containsEntry("anthropic-version", "2023-06-01");
    bodies.put("/v1beta/models", "{\"models\":[{\"name\":\"models/gemini-2.5-flash\"}]}");
    assertThat(check(Api.GEMINI, "k2").models()).containsExactly("gemini-2.5-flash");
    assertThat(headersSeen).containsEntry("x-goog-api-key", "k2");
    bodies.put("/api/tags", "{\"models\":[{\"name\":\"qwen3:8b\",\"model\":\"qwen3:8b\"}]}");
    assertThat(check(Api.OLLAMA_GENERATE, null).models()).containsExactly("qwen3:8b");
    bodies.put("/info", "{\"model_id\":\"meta-llama/Llama-3.1-8B-Instruct\",\"max_total_tokens\":8192}");
    assertThat(check(Api.TGI, "k3").models()).containsExactly("meta-llama/Llama-3.1-8B-Instruct");
    assertThat(headersSeen).containsEntry("authorization", "Bearer k3");
  }

  @Test
  void aServerOfAnotherApiIsOneClearLine() {
    bodies.put("/v1/models", "{\"object\":\"list\",\"data\":[{\"id\":\"llama\",\"object\":\"model\"}]}");
    assertThatThrownBy(() -> check(Api.OLLAMA, null))
        .isInstanceOf(TargetException.class) // exit 2: the user fixes it with a flag
        .hasMessageContaining("/api/tags answered HTTP 404")
        .hasMessageContaining("this endpoint answered like an OpenAI server; a one-token request to POST")
        .hasMessageEndingWith("/api/chat answered HTTP 404: try --api chat");
    bodies.clear();
    bodies.put("/api/tags", "{\"models\":[{\"name\":\"llama3.2:latest\"}]}");
    assertThat(check(Api.CHAT, null).warnings()).singleElement().asString()
        .endsWith("this endpoint answered like Ollama's native API; if its requests fail, try --api ollama");
    assertThatThrownBy(() -> check(Api.GEMINI, null))
        .hasMessageEndingWith("try --api ollama");
    bodies.clear();
    bodies.put("/info", "{\"model_id\":\"m\"}");
    assertThatThrownBy(() -> check(Api.ANTHROPIC, null)).hasMessageEndingWith("try --api tgi");
  }

  /**
   * A server whose model list is another API's (Ollama's tags) but that also serves the asked API's
   * generation route (Ollama's Anthropic-compatible /v1/messages, or a gateway): the list alone
   * does not refuse it; one real one-token request decides.
   */
  @Test
  void aGenerationRouteThatAnswersIsNotRefusedOnTheListAlone() {
    bodies.put("/api/tags", "{\"models\":[{\"name\":\"qwen3:8b\"}]}");
    bodies.put("/v1/messages", "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}");
    Preflight.Result r = check(Api.ANTHROPIC, "k1");
    assertThat(r.models()).isEmpty();
    assertThat(r.warnings()).singleElement().asString()
        .contains("but a one-token anthropic request was answered (HTTP 200): continuing without a model list");
    bodies.remove("/v1/messages");
    assertThatThrownBy(() -> check(Api.ANTHROPIC, "k1"))
        .hasMessageContaining("a one-token request to POST http://127.0.0.1:")
        .hasMessageContaining("/v1/messages answered HTTP 404")
        .hasMessageEndingWith("try --api ollama");
  }

  @Test
  void noListingAnywhereIsAWarningAndAWrongKeyStops() {
    Preflight.Result r = check(Api.RESPONSES, null);
    assertThat(r.models()).isEmpty();
    assertThat(r.warnings()).singleElement().asString().contains("answered HTTP 404; continuing without a model list");
    bodies.put("/v1/models", "{\"something\":\"else\"}");
    assertThat(check(Api.CHAT, null).warnings()).singleElement().asString().contains("does --url speak --api chat?");
    status = 401;
    bodies.put("/v1/models", "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}");
    assertThatThrownBy(() -> check(Api.CHAT, "wrong"))
        .isInstanceOf(TargetException.class) // exit 2: the user fixes it with a flag
        .hasMessageContaining("(HTTP 401): give the API key with --api-key-env VAR")
        .hasMessageEndingWith("this endpoint answered like Anthropic's Messages API; try --api anthropic");
    assertThatThrownBy(() -> check(Api.ANTHROPIC, "wrong")).hasMessageEndingWith("--api-key-env VAR (sent as x-api-key)");
  }

  @Test
  void listingShapes() {
    assertThat(Preflight.listed(Api.OLLAMA, null)).isNull();
    assertThat(Preflight.listed(Api.TGI, new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode())).isNull();
  }
}
