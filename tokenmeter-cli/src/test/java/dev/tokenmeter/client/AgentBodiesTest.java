package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.ToolCall;
import dev.tokenmeter.core.request.ToolSpec;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * An agent step's request body in each API's documented shape: the tools, the model's tool call
 * and the tool's result answering its id. The call comes from a recorded OpenAI response
 * (transcripts/openai-chat-tool-response.body) read by the client's own decoder, so what the
 * server said is what the next request sends back.
 */
class AgentBodiesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"location\":{\"type\":\"string\"}},\"required\":[\"location\"]}";
  private static final List<ToolSpec> TOOLS = List.of(new ToolSpec("get_weather", "Weather at a place.", SCHEMA));

  /** The tool call of the recorded response, as the decoder and the timeline read it. */
  private static ToolCall recordedCall() throws Exception {
    String text;
    try (InputStream in = AgentBodiesTest.class.getResourceAsStream("/transcripts/openai-chat-tool-response.body")) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    while (text.startsWith(":")) {
      text = text.substring(text.indexOf('\n') + 1);
    }
    byte[] body = text.getBytes(StandardCharsets.UTF_8);
    RequestTimeline t = new RequestTimeline(
        new RequestSpec(0, new Prompt.Text("x"), -1, false, OptionalInt.empty()), 0, Phase.MEASURED, 0);
    new ChunkParser().parseResponse(body, 0, body.length, (StreamItem item) -> t.item(item, 1));
    assertThat(t.toolCalls()).hasSize(1);
    return t.toolCalls().get(0);
  }

  private static JsonNode body(Api api, ToolCall call) throws Exception {
    List<Message> history = List.of(
        new Message("system", "You are an agent."),
        new Message("user", "Weather in Paris?"),
        new Message("assistant", "", call),
        new Message("tool", "sunny, 21 C", new ToolCall(call.id(), call.name(), null)));
    RequestSpec spec = new RequestSpec(2, new Prompt.Chat(history, TOOLS), -1, false, OptionalInt.of(64));
    EndpointConfig config = new EndpointConfig(URI.create("http://h"), api, "m", "KEY", Map.of(), null, true, true, 1000);
    return JSON.readTree(new RequestBodyEncoder(config).encode(spec));
  }

  @Test
  void theRecordedCallIsReadWithItsIdNameAndArguments() throws Exception {
    assertThat(recordedCall()).isEqualTo(new ToolCall("call_62136354", "get_weather", "{\"location\":\"Paris\"}"));
  }

  @Test
  void openAiChat() throws Exception {
    JsonNode b = body(Api.CHAT, recordedCall());
    assertThat(b.path("tools").path(0)).isEqualTo(JSON.readTree(
        "{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":\"Weather at a place.\","
            + "\"parameters\":" + SCHEMA + "}}"));
    JsonNode m = b.path("messages");
    assertThat(m).hasSize(4);
    assertThat(m.path(2)).isEqualTo(JSON.readTree("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":"
        + "\"call_62136354\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":"
        + "\"{\\\"location\\\":\\\"Paris\\\"}\"}}]}"));
    assertThat(m.path(3)).isEqualTo(JSON.readTree(
        "{\"role\":\"tool\",\"tool_call_id\":\"call_62136354\",\"content\":\"sunny, 21 C\"}"));
  }

  @Test
  void anthropicMessages() throws Exception {
    JsonNode b = body(Api.ANTHROPIC, new ToolCall("toolu_01A", "get_weather", "{\"location\":\"Paris\"}"));
    assertThat(b.path("system").asText()).isEqualTo("You are an agent.");
    assertThat(b.path("tools").path(0)).isEqualTo(JSON.readTree(
        "{\"name\":\"get_weather\",\"description\":\"Weather at a place.\",\"input_schema\":" + SCHEMA + "}"));
    JsonNode m = b.path("messages");
    assertThat(m).hasSize(3);
    assertThat(m.path(1)).isEqualTo(JSON.readTree("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
        + "\"id\":\"toolu_01A\",\"name\":\"get_weather\",\"input\":{\"location\":\"Paris\"}}]}"));
    assertThat(m.path(2)).isEqualTo(JSON.readTree("{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
        + "\"tool_use_id\":\"toolu_01A\",\"content\":\"sunny, 21 C\"}]}"));
  }

  @Test
  void geminiFunctionDeclarationsCallAndResponse() throws Exception {
    JsonNode b = body(Api.GEMINI, new ToolCall("tm_0_1", "get_weather", "{\"location\":\"Paris\"}"));
    assertThat(b.path("tools")).isEqualTo(JSON.readTree("[{\"functionDeclarations\":[{\"name\":\"get_weather\","
        + "\"description\":\"Weather at a place.\",\"parameters\":" + SCHEMA + "}]}]"));
    JsonNode c = b.path("contents");
    assertThat(c).hasSize(3);
    // a client-made id (tm_) is not Gemini's: left out
    assertThat(c.path(1)).isEqualTo(JSON.readTree(
        "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"location\":\"Paris\"}}}]}"));
    assertThat(c.path(2)).isEqualTo(JSON.readTree("{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":"
        + "\"get_weather\",\"response\":{\"content\":\"sunny, 21 C\"}}}]}"));
  }

  @Test
  void responsesFunctionCallAndOutputItems() throws Exception {
    JsonNode b = body(Api.RESPONSES, new ToolCall("call_9", "get_weather", "{\"location\":\"Paris\"}"));
    assertThat(b.path("tools").path(0)).isEqualTo(JSON.readTree("{\"type\":\"function\",\"name\":\"get_weather\","
        + "\"description\":\"Weather at a place.\",\"parameters\":" + SCHEMA + "}"));
    JsonNode in = b.path("input");
    assertThat(in).hasSize(4);
    assertThat(in.path(2)).isEqualTo(JSON.readTree("{\"type\":\"function_call\",\"call_id\":\"call_9\",\"name\":"
        + "\"get_weather\",\"arguments\":\"{\\\"location\\\":\\\"Paris\\\"}\"}"));
    assertThat(in.path(3)).isEqualTo(JSON.readTree(
        "{\"type\":\"function_call_output\",\"call_id\":\"call_9\",\"output\":\"sunny, 21 C\"}"));
  }

  @Test
  void argumentsThatAreNotAnObjectAreSentAsAnEmptyInput() throws Exception {
    JsonNode b = body(Api.ANTHROPIC, new ToolCall("toolu_1", "get_weather", "{\"locat"));
    assertThat(b.path("messages").path(1).path("content").path(0).path("input")).isEqualTo(JSON.readTree("{}"));
  }
}
