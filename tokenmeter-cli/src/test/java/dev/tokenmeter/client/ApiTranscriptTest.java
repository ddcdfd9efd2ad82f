package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.tokenmeter.client.ChunkParserTranscriptTest.content;
import static dev.tokenmeter.client.ChunkParserTranscriptTest.reasoning;
import static dev.tokenmeter.client.ChunkParserTranscriptTest.tool;

import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.StreamItem.Done;
import dev.tokenmeter.core.request.StreamItem.ErrorEvent;
import dev.tokenmeter.core.request.StreamItem.Finish;
import dev.tokenmeter.core.request.StreamItem.Role;
import dev.tokenmeter.core.request.StreamItem.Usage;
import dev.tokenmeter.sse.SseFramer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Transcripts of each API's documented wire format (src/test/resources/transcripts, each file
 * names its source) read through the SSE framer or the line framer and the API's decoder, split at
 * random points (mid-line, mid-UTF-8): the item sequence is pinned exactly.
 */
class ApiTranscriptTest {
  private static final Done DONE = new Done();
  private static final Role ASSISTANT = new Role("assistant");

  static byte[] resource(String name) {
    try (InputStream in = ApiTranscriptTest.class.getResourceAsStream("/transcripts/" + name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The items of a streamed transcript, the same however its bytes are split. */
  static List<StreamItem> stream(Api api, String name) {
    byte[] bytes = resource(name);
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (api.lineDelimited()) {
      assertThat(text).startsWith("# source");
      while (text.startsWith("#")) {
        text = text.substring(text.indexOf('\n') + 1);
      }
      bytes = text.getBytes(StandardCharsets.UTF_8);
    } else {
      assertThat(text).startsWith(": source");
    }
    List<StreamItem> whole = read(api, bytes, new int[0]);
    Random random = new Random(name.hashCode());
    for (int round = 0; round < 50; round++) {
      int[] cuts = random.ints(random.nextInt(40), 0, bytes.length + 1).sorted().toArray();
      assertThat(read(api, bytes, cuts)).as("%s split at %s", name, cuts).isEqualTo(whole);
    }
    return whole;
  }

  private static List<StreamItem> read(Api api, byte[] bytes, int[] cuts) {
    List<StreamItem> items = new ArrayList<>();
    StreamDecoder decoder = StreamDecoder.of(api, new ChunkParser());
    SseFramer sse = new SseFramer(e -> decoder.event(e.type(), e.dataBytes(), 0, e.dataLength(), items::add));
    LineFramer lines = new LineFramer((b, off, len) -> decoder.event(null, b, off, len, items::add));
    int from = 0;
    for (int k = 0; k <= cuts.length; k++) {
      int to = k < cuts.length ? cuts[k] : bytes.length;
      if (api.lineDelimited()) {
        lines.feed(bytes, from, to - from);
      } else {
        sse.feed(bytes, from, to - from);
      }
      from = to;
    }
    assertThat(api.lineDelimited() ? lines.hasPartialLine() : sse.hasPartialEvent()).isFalse();
    return items;
  }

  /** A whole body: its leading ": source" comment lines dropped. */
  static List<StreamItem> body(Api api, String name) {
    String text = new String(resource(name), StandardCharsets.UTF_8);
    assertThat(text).startsWith(": source");
    while (text.startsWith(":")) {
      text = text.substring(text.indexOf('\n') + 1);
    }
    byte[] b = ("  " + text).getBytes(StandardCharsets.UTF_8);
    List<StreamItem> items = new ArrayList<>();
    StreamDecoder.of(api, new ChunkParser()).body(b, 2, b.length - 2, items::add);
    return items;
  }

  @Test
  void anthropicTextWithPingAndCacheReads() {
    assertThat(stream(Api.ANTHROPIC, "anthropic-messages.sse"))
        .containsExactly(
            ASSISTANT, content("Hello"), content("! Grüße"), content(" 👋"),
            new Finish("stop"), new Usage(25 + 2048, 6, -1, 2048), DONE);
  }

  @Test
  void anthropicThinkingIsReasoningAndToolInputIsToolCall() {
    assertThat(stream(Api.ANTHROPIC, "anthropic-thinking-tool.sse"))
        .containsExactly(
            ASSISTANT,
            reasoning("The user wants the weather."),
            reasoning(" I'll call the tool."),
            content("Let me check."),
            // the tool_use block is content block 2; each input_json_delta names it (parallel calls' keys)
            new StreamItem.ToolCallStart("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", 2),
            new StreamItem.ToolCallStart(null, null, 2),
            tool("{\"location\": \"San Fra"),
            new StreamItem.ToolCallStart(null, null, 2),
            tool("ncisco, CA\"}"),
            new Finish("tool_calls"),
            new Usage(472, 89, -1),
            DONE);
  }

  @Test
  void anthropicOverloadedErrorMidStream() {
    assertThat(stream(Api.ANTHROPIC, "anthropic-error-midstream.sse"))
        .containsExactly(
            ASSISTANT, content("Sure"), new ErrorEvent("Overloaded", "overloaded_error", null));
  }

  @Test
  void anthropicBodies() {
    assertThat(body(Api.ANTHROPIC, "anthropic-message-response.body"))
        .containsExactly(
            ASSISTANT, reasoning("Short answer."), content("Hi! My name is Claude."),
            new Finish("length"), new Usage(2195, 503, -1, 0));
    assertThat(body(Api.ANTHROPIC, "anthropic-error-response.body"))
        .containsExactly(
            new ErrorEvent("Number of request tokens has exceeded your per-minute rate limit", "rate_limit_error", null));
  }

  @Test
  void responsesTextSkipsTheRepeatedWholeText() {
    assertThat(stream(Api.RESPONSES, "responses-text.sse"))
        .containsExactly(content("Hi"), content(" there!"), new Finish("stop"), new Usage(37, 3, 0, 32), DONE);
  }

  @Test
  void responsesReasoningSummaryAndIncompleteIsLength() {
    assertThat(stream(Api.RESPONSES, "responses-reasoning-incomplete.sse"))
        .containsExactly(
            reasoning("**Counting**"), reasoning(" to three."), content("1, 2"),
            new Finish("length"), new Usage(12, 64, 60, 0), DONE);
  }

  @Test
  void responsesFailedAndErrorEventsAreStreamErrors() {
    assertThat(stream(Api.RESPONSES, "responses-failed.sse"))
        .containsExactly(
            content("Par"), new ErrorEvent("The model failed to generate a response.", null, "server_error"), DONE);
    assertThat(stream(Api.RESPONSES, "responses-error-event.sse"))
        .containsExactly(new ErrorEvent("Rate limit reached for gpt-4.1", null, "rate_limit_exceeded"));
  }

  @Test
  void responsesBody() {
    assertThat(body(Api.RESPONSES, "responses-response.body"))
        .containsExactly(reasoning("Greeting."), content("Hello!"), new Finish("stop"), new Usage(8, 20, 16, 0));
  }

  @Test
  void geminiThoughtsApartAndUsageCountsThoughtsAsOutput() {
    assertThat(stream(Api.GEMINI, "gemini-stream.sse"))
        .containsExactly(
            reasoning("**Planning** a short reply."),
            new Usage(9, -1, -1),
            content("Hello"),
            new Usage(9, 31, 30),
            content(" there, café"),
            new Finish("stop"),
            new Usage(9, 34, 30, 0));
  }

  @Test
  void geminiFinishReasonsAndBlockedPrompts() {
    assertThat(stream(Api.GEMINI, "gemini-safety.sse"))
        .containsExactly(content("I can"), new Usage(7, 2, -1), new Finish("safety"), new Usage(7, 2, -1));
    assertThat(stream(Api.GEMINI, "gemini-prompt-blocked.sse"))
        .containsExactly(
            new Usage(12, -1, -1),
            new ErrorEvent("Gemini blocked the prompt: PROHIBITED_CONTENT", "prompt_blocked", "PROHIBITED_CONTENT"));
    assertThat(stream(Api.GEMINI, "gemini-malformed-call.sse"))
        .containsExactly(
            new StreamItem.ToolCallStart(null, "get_weather"),
            tool("{\"city\":\"Paris\"}"),
            new Finish("malformed_function_call"),
            new Usage(30, 5, -1),
            new ErrorEvent("Gemini ended the answer with finishReason MALFORMED_FUNCTION_CALL", "finish_reason",
                "MALFORMED_FUNCTION_CALL"));
    assertThat(body(Api.GEMINI, "gemini-error-response.body"))
        .containsExactly(new ErrorEvent("Resource has been exhausted (e.g. check quota).", "RESOURCE_EXHAUSTED", "429"));
  }

  @Test
  void tgiSpecialTokenIsNoTextAndDetailsGiveFinishAndUsage() {
    assertThat(stream(Api.TGI, "tgi-generate-stream.sse"))
        .containsExactly(content(" Deep"), content(" learning"), content(" is"), new Finish("stop"), new Usage(11, 4, -1));
    assertThat(stream(Api.TGI, "tgi-generate-error.sse"))
        .containsExactly(
            content(" Deep"),
            new ErrorEvent("Request failed during generation: Server error: CUDA out of memory", "generation", null));
    assertThat(body(Api.TGI, "tgi-generate-response.body"))
        .containsExactly(content(" Deep learning is a subset"), new Finish("length"), new Usage(-1, 5, -1));
  }

  @Test
  void ollamaChatThinkingThenContentAndDoneLine() {
    assertThat(stream(Api.OLLAMA, "ollama-native-chat.ndjson"))
        .containsExactly(
            ASSISTANT, reasoning("Simple"), ASSISTANT, reasoning(" greeting."), ASSISTANT, content("Hallo"),
            ASSISTANT, content(" Welt 🌍"), ASSISTANT, new Finish("stop"), new Usage(26, 12, -1), DONE);
  }

  @Test
  void ollamaGenerateAndError() {
    assertThat(stream(Api.OLLAMA_GENERATE, "ollama-generate.ndjson"))
        .containsExactly(content("The"), content(" sky"), new Finish("length"), new Usage(26, 2, -1), DONE);
    assertThat(stream(Api.OLLAMA, "ollama-error.ndjson"))
        .containsExactly(
            ASSISTANT, content("Once"),
            new ErrorEvent("an error was encountered while running the model: unexpected EOF", null, null));
  }

  @Test
  void aServerOfAnotherApiIsNamedInTheError() {
    byte[] openAi = "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[]}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> StreamDecoder.of(Api.ANTHROPIC, new ChunkParser()).event("message", openAi, 0, openAi.length, i -> {}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith("this endpoint answered like an OpenAI server; try --api chat; not an Anthropic event");
    byte[] anthropic = "{\"type\":\"message_start\",\"message\":{}}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> StreamDecoder.of(Api.CHAT, new ChunkParser()).event("message", anthropic, 0, anthropic.length, i -> {}))
        .hasMessageStartingWith("this endpoint answered like Anthropic's Messages API; try --api anthropic; not an OpenAI chunk");
    byte[] ollama = "{\"model\":\"m\",\"response\":\"x\",\"done\":false}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> StreamDecoder.of(Api.GEMINI, new ChunkParser()).body(ollama, 0, ollama.length, i -> {}))
        .hasMessageStartingWith("this endpoint answered like Ollama's native API; try --api ollama-generate");
    byte[] gemini = "{\"candidates\":[]}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> StreamDecoder.of(Api.TGI, new ChunkParser()).event(null, gemini, 0, gemini.length, i -> {}))
        .hasMessageStartingWith("this endpoint answered like Gemini; try --api gemini");
    byte[] tgi = "{\"token\":{\"text\":\"a\"},\"generated_text\":null}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> StreamDecoder.of(Api.OLLAMA, new ChunkParser()).event(null, tgi, 0, tgi.length, i -> {}))
        .hasMessageStartingWith("this endpoint answered like TGI's native API; try --api tgi");
    byte[] responses = "{\"type\":\"response.created\"}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> StreamDecoder.of(Api.OLLAMA, new ChunkParser()).event(null, responses, 0, responses.length, i -> {}))
        .hasMessageStartingWith("this endpoint answered like OpenAI's Responses API; try --api responses");
    byte[] unknown = "{\"x\":1}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> StreamDecoder.of(Api.RESPONSES, new ChunkParser()).event("message", unknown, 0, unknown.length, i -> {}))
        .hasMessageStartingWith("not a Responses event: no type; payload:");
    byte[] malformed = "{\"type\":".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> StreamDecoder.of(Api.ANTHROPIC, new ChunkParser()).event("message", malformed, 0, malformed.length, i -> {}))
        .hasMessageStartingWith("malformed JSON");
  }

  @Test
  void cachedTokensAreMappedPerApi() {
    assertThat(AnthropicDecoder.usage(
            node("{\"input_tokens\":5,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":20}"),
            node("{\"output_tokens\":7}")))
        .isEqualTo(new ApiUsage(125, 7, -1, 100));
    assertThat(ResponsesDecoder.usage(node(
            "{\"input_tokens\":50,\"input_tokens_details\":{\"cached_tokens\":32},\"output_tokens\":9,"
                + "\"output_tokens_details\":{\"reasoning_tokens\":4}}")))
        .isEqualTo(new ApiUsage(50, 9, 4, 32));
    assertThat(GeminiDecoder.usage(node(
            "{\"promptTokenCount\":40,\"cachedContentTokenCount\":30,\"candidatesTokenCount\":5,\"thoughtsTokenCount\":2}")))
        .isEqualTo(new ApiUsage(40, 7, 2, 30));
    assertThat(OllamaDecoder.usage(node("{\"prompt_eval_count\":3,\"eval_count\":4}"))).isEqualTo(new ApiUsage(3, 4, -1, -1));
    assertThat(TgiDecoder.usage(node("{\"generated_tokens\":4}"))).isEqualTo(new ApiUsage(-1, 4, -1, -1));
  }

  private static com.fasterxml.jackson.databind.JsonNode node(String json) {
    try {
      return WireJson.MAPPER.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
