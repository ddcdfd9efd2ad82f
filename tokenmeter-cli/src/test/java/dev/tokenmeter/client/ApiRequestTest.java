package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.time.Ticker;
import io.netty.handler.codec.http.FullHttpRequest;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** What each API's request looks like: path, auth header and body. */
class ApiRequestTest {
  private static final Prompt CHAT =
      new Prompt.Chat(List.of(new Message("system", "Be brief."), new Message("user", "Hi"),
          new Message("assistant", "Hello"), new Message("user", "Bye")));

  private static EndpointConfig config(Api api, String url, String model, boolean stream, String extra) {
    return new EndpointConfig(URI.create(url), api, model, "KEY", Map.of(), extra, stream, true, 1000);
  }

  private static String body(Api api, Prompt prompt, int maxTokens, String extra) {
    RequestSpec spec = new RequestSpec(1, prompt, -1, false, maxTokens > 0 ? OptionalInt.of(maxTokens) : OptionalInt.empty());
    return new String(new RequestBodyEncoder(config(api, "http://h", "m", true, extra)).encode(spec), StandardCharsets.UTF_8);
  }

  @Test
  void pathsFollowEachApisRoot() {
    assertThat(config(Api.CHAT, "http://h:1", "m", true, null).requestPath()).isEqualTo("/v1/chat/completions");
    assertThat(config(Api.ANTHROPIC, "https://api.anthropic.com/", "m", true, null).requestPath()).isEqualTo("/v1/messages");
    assertThat(config(Api.RESPONSES, "http://h/v1", "m", true, null).requestPath()).isEqualTo("/v1/responses");
    assertThat(config(Api.GEMINI, "https://generativelanguage.googleapis.com", "models/gemini-2.5-flash", true, null)
            .requestPath())
        .isEqualTo("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    assertThat(config(Api.GEMINI, "http://h/v1", "gemini-pro", false, null).requestPath())
        .isEqualTo("/v1/models/gemini-pro:generateContent");
    assertThat(config(Api.TGI, "http://h/prefix", null, true, null).requestPath()).isEqualTo("/prefix/generate_stream");
    assertThat(config(Api.TGI, "http://h/", null, false, null).requestPath()).isEqualTo("/generate");
    assertThat(config(Api.OLLAMA, "http://h:11434", "q", true, null).requestPath()).isEqualTo("/api/chat");
    assertThat(config(Api.OLLAMA_GENERATE, "http://h:11434/api/", "q", true, null).requestPath()).isEqualTo("/api/generate");
    assertThat(config(Api.OLLAMA, "http://h:11434", "q", true, null).modelsPath()).isEqualTo("/api/tags");
    assertThat(config(Api.TGI, "http://h/p", null, true, null).modelsPath()).isEqualTo("/p/info");
    assertThat(config(Api.GEMINI, "http://h", null, true, null).modelsPath()).isEqualTo("/v1beta/models");
  }

  @Test
  void parseTakesEveryNameAndExplainsAWrongOne() {
    for (Api api : Api.values()) {
      assertThat(Api.parse(api.wireName().toUpperCase())).isEqualTo(api);
    }
    assertThat(Api.parse("ollama_generate")).isEqualTo(Api.OLLAMA_GENERATE);
    assertThatThrownBy(() -> Api.parse("bedrock"))
        .hasMessage("unknown API 'bedrock': use one of chat, completions, anthropic, responses, gemini, tgi, ollama,"
            + " ollama-generate (docs/METRICS.md, \"APIs\")");
  }

  @Test
  void bodies() {
    assertThat(body(Api.ANTHROPIC, CHAT, 0, null))
        .isEqualTo("{\"model\":\"m\",\"max_tokens\":4096,\"system\":\"Be brief.\",\"messages\":[{\"role\":\"user\","
            + "\"content\":\"Hi\"},{\"role\":\"assistant\",\"content\":\"Hello\"},{\"role\":\"user\",\"content\":\"Bye\"}],"
            + "\"stream\":true}");
    assertThat(body(Api.RESPONSES, new Prompt.Text("Hi"), 64, null))
        .isEqualTo("{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_output_tokens\":64,\"stream\":true}");
    assertThat(body(Api.GEMINI, CHAT, 32, null))
        .isEqualTo("{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Hi\"}]},{\"role\":\"model\",\"parts\":"
            + "[{\"text\":\"Hello\"}]},{\"role\":\"user\",\"parts\":[{\"text\":\"Bye\"}]}],\"systemInstruction\":"
            + "{\"parts\":[{\"text\":\"Be brief.\"}]},\"generationConfig\":{\"maxOutputTokens\":32}}");
    assertThat(body(Api.TGI, CHAT, 16, null))
        .isEqualTo("{\"inputs\":\"Be brief.\\nHi\\nHello\\nBye\",\"parameters\":{\"max_new_tokens\":16,\"details\":true},"
            + "\"stream\":true}");
    assertThat(body(Api.OLLAMA, new Prompt.Text("Hi"), 8, null))
        .isEqualTo("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"stream\":true,"
            + "\"options\":{\"num_predict\":8}}");
    assertThat(body(Api.OLLAMA_GENERATE, new Prompt.Text("Hi"), 0, "{\"options\":{\"num_ctx\":4096},\"think\":false}"))
        .isEqualTo("{\"model\":\"m\",\"prompt\":\"Hi\",\"stream\":true,\"options\":{\"num_ctx\":4096},\"think\":false}");
    assertThat(body(Api.ANTHROPIC, new Prompt.Text("Hi"), 0, "{\"max_tokens\":10,\"thinking\":{\"type\":\"enabled\"}}"))
        .isEqualTo("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"stream\":true,"
            + "\"max_tokens\":10,\"thinking\":{\"type\":\"enabled\"}}");
  }

  @Test
  void headersCarryTheKeyWhereEachApiWantsIt() {
    assertThat(headers(Api.ANTHROPIC)).containsEntry("x-api-key", "KEY").containsEntry("anthropic-version", "2023-06-01")
        .doesNotContainKey("authorization").containsEntry("accept", "text/event-stream");
    assertThat(headers(Api.GEMINI)).containsEntry("x-goog-api-key", "KEY").doesNotContainKey("authorization");
    assertThat(headers(Api.OLLAMA)).containsEntry("authorization", "Bearer KEY").containsEntry("accept", "application/x-ndjson");
  }

  private static Map<String, String> headers(Api api) {
    ApiEndpoint e = ApiEndpoint.create(config(api, "http://127.0.0.1:9", "m", true, null), Ticker.system());
    try {
      FullHttpRequest r = e.newRequest(new RequestSpec(1, new Prompt.Text("x"), -1, false, OptionalInt.empty()));
      Map<String, String> h = new java.util.TreeMap<>();
      r.headers().forEach(x -> h.put(x.getKey().toLowerCase(), x.getValue()));
      r.release();
      return h;
    } finally {
      e.close();
    }
  }
}
