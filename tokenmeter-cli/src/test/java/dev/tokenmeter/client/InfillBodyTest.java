package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The fill-in-the-middle body ({@code --profile completion}): OpenAI's legacy completions API takes
 * {@code prompt} and {@code suffix} (platform.openai.com/docs/api-reference/completions/create), as
 * Ollama's generate API does; every other API gets one user message with the cursor marked.
 */
class InfillBodyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Prompt.Infill FIM = new Prompt.Infill("def add(a, b):\n    return ", "\n\nprint(add(1, 2))\n");

  private static JsonNode body(Api api, String extra) throws Exception {
    var config = new EndpointConfig(URI.create("http://h"), api, "m", "KEY", Map.of(), extra, true, true, 1000);
    RequestSpec spec = new RequestSpec(1, FIM, 20, false, OptionalInt.of(32));
    return JSON.readTree(new String(new RequestBodyEncoder(config).encode(spec), StandardCharsets.UTF_8));
  }

  @Test
  void theCompletionsApiSendsThePrefixAsPromptAndTheRestAsSuffix() throws Exception {
    JsonNode b = body(Api.COMPLETIONS, null);
    assertThat(b.get("prompt").asText()).isEqualTo("def add(a, b):\n    return ");
    assertThat(b.get("suffix").asText()).isEqualTo("\n\nprint(add(1, 2))\n");
    assertThat(b.get("max_tokens").asInt()).isEqualTo(32);
    assertThat(b.get("stream").asBoolean()).isTrue();
    assertThat(b.has("messages")).isFalse();
    // --extra-body replaces tokenmeter's field of the same name, as for every other field.
    assertThat(body(Api.COMPLETIONS, "{\"suffix\":\"\"}").get("suffix").asText()).isEmpty();
  }

  @Test
  void chatAndOtherApisGetOneUserMessageWithTheCursorMarked() throws Exception {
    String text = Prompt.Infill.INSTRUCTION + "def add(a, b):\n    return " + "<CURSOR>" + "\n\nprint(add(1, 2))\n";
    JsonNode chat = body(Api.CHAT, null);
    assertThat(chat.get("messages")).hasSize(1);
    assertThat(chat.at("/messages/0/role").asText()).isEqualTo("user");
    assertThat(chat.at("/messages/0/content").asText()).isEqualTo(text);
    assertThat(chat.has("suffix")).isFalse();
    assertThat(body(Api.ANTHROPIC, null).at("/messages/0/content").asText()).isEqualTo(text);

    JsonNode ollama = body(Api.OLLAMA_GENERATE, null);
    assertThat(ollama.get("prompt").asText()).isEqualTo("def add(a, b):\n    return ");
    assertThat(ollama.get("suffix").asText()).isEqualTo("\n\nprint(add(1, 2))\n");
  }
}
