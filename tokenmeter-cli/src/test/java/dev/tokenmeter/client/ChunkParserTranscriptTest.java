package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.StreamItem.Done;
import dev.tokenmeter.core.request.StreamItem.ErrorEvent;
import dev.tokenmeter.core.request.StreamItem.Finish;
import dev.tokenmeter.core.request.StreamItem.Role;
import dev.tokenmeter.core.request.StreamItem.Text;
import dev.tokenmeter.core.request.StreamItem.Usage;
import dev.tokenmeter.core.request.TextKind;
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
 * Golden transcripts of the wire formats of real servers (src/test/resources/transcripts, each file
 * says where its format comes from), read through the SSE framer and the chunk parser: the item
 * sequence is pinned exactly.
 */
class ChunkParserTranscriptTest {

  private static final Done DONE = new Done();

  static Text content(String s) {
    return new Text(s, TextKind.CONTENT);
  }

  static Text reasoning(String s) {
    return new Text(s, TextKind.REASONING);
  }

  static Text tool(String s) {
    return new Text(s, TextKind.TOOL_CALL);
  }

  static final Role ASSISTANT = new Role("assistant");

  private static byte[] resource(String name) {
    try (InputStream in =
        ChunkParserTranscriptTest.class.getResourceAsStream("/transcripts/" + name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The stream's items, checked to be the same however the bytes are chunked. */
  private static List<StreamItem> stream(String name) {
    byte[] bytes = resource(name);
    assertThat(new String(bytes, StandardCharsets.UTF_8)).startsWith(": source");
    List<StreamItem> whole = read(bytes, new int[0]);
    Random random = new Random(name.hashCode());
    for (int round = 0; round < 50; round++) {
      int[] cuts = random.ints(random.nextInt(40), 0, bytes.length + 1).sorted().toArray();
      assertThat(read(bytes, cuts)).as("%s split at %s", name, cuts).isEqualTo(whole);
    }
    return whole;
  }

  private static List<StreamItem> read(byte[] bytes, int[] cuts) {
    List<StreamItem> items = new ArrayList<>();
    ChunkParser parser = new ChunkParser();
    SseFramer framer = new SseFramer(event -> parser.parse(event, items::add));
    int from = 0;
    for (int k = 0; k <= cuts.length; k++) {
      int to = k < cuts.length ? cuts[k] : bytes.length;
      framer.feed(bytes, from, to - from);
      from = to;
    }
    assertThat(framer.hasPartialEvent()).isFalse();
    return items;
  }

  /** A non-streaming body: its leading ": source" comment lines are dropped. */
  private static List<StreamItem> response(String name) {
    String text = new String(resource(name), StandardCharsets.UTF_8);
    assertThat(text).startsWith(": source");
    while (text.startsWith(":")) {
      text = text.substring(text.indexOf('\n') + 1);
    }
    byte[] body = ("  " + text).getBytes(StandardCharsets.UTF_8); // also exercise the offset
    List<StreamItem> items = new ArrayList<>();
    new ChunkParser().parseResponse(body, 2, body.length - 2, items::add);
    return items;
  }

  @Test
  void vllmChatWithUsage() {
    assertThat(stream("vllm-chat-usage.sse"))
        .containsExactly(
            ASSISTANT, // the role chunk's content "" is no token
            content("The"),
            content(" capital"),
            content(" of"),
            content(" France"),
            content(" is"),
            content(" Paris"),
            content("."),
            new Finish("stop"),
            new Usage(42, 8, -1),
            DONE);
  }

  @Test
  void openAiChatWithUsageAndDetails() {
    assertThat(stream("openai-chat.sse"))
        .containsExactly(
            ASSISTANT,
            content("Hello"),
            content("!"),
            content(" How"),
            content(" can"),
            content(" I"),
            content(" help"),
            content("?"),
            new Finish("stop"),
            new Usage(9, 7, 0, 0), // prompt_tokens_details.cached_tokens: 0
            DONE);
  }

  @Test
  void vllmCompletions() {
    assertThat(stream("vllm-completions-usage.sse"))
        .containsExactly(
            content(" Paris"),
            content("."),
            content(" It"),
            content(" is"),
            content(" also"),
            new Finish("length"),
            new Usage(6, 5, -1),
            DONE);
  }

  @Test
  void deepSeekReasoningContentWithKeepAlivesAndUsageInTheFinishChunk() {
    assertThat(stream("deepseek-reasoner.sse"))
        .containsExactly(
            ASSISTANT,
            reasoning("Okay"),
            reasoning(","),
            reasoning(" the user says hi"),
            content("Hi"),
            content(" there! 👋"),
            new Finish("stop"),
            new Usage(13, 9, 6, 0),
            DONE);
  }

  @Test
  void vllmReasoningSentInBothFieldsCountsOnce() {
    assertThat(stream("vllm-reasoning-both-fields.sse"))
        .containsExactly(
            ASSISTANT,
            reasoning("Let"),
            reasoning(" me think"),
            reasoning(".\n"),
            content("\n\n"),
            content("42"),
            new Finish("stop"),
            new Usage(15, 8, -1),
            DONE);
  }

  @Test
  void toolCallArguments() {
    assertThat(stream("openai-tool-calls.sse"))
        .containsExactly(
            ASSISTANT,
            new StreamItem.ToolCallStart("call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", 0),
            new StreamItem.ToolCallStart(null, null, 0), // each delta's index: which call it extends
            tool("{\""),
            new StreamItem.ToolCallStart(null, null, 0),
            tool("location"),
            new StreamItem.ToolCallStart(null, null, 0),
            tool("\":\""),
            new StreamItem.ToolCallStart(null, null, 0),
            tool("Paris"),
            new StreamItem.ToolCallStart(null, null, 0),
            tool("\"}"),
            new Finish("tool_calls"),
            DONE);
  }

  @Test
  void llamaCppFinishBeforeDeltaAndUsageInTheLastChunk() {
    assertThat(stream("llamacpp-chat.sse"))
        .containsExactly(
            ASSISTANT,
            content("Bonjour"),
            content(" à"),
            content(" tous"),
            content(" !"),
            new Finish("stop"),
            new Usage(18, 4, -1),
            DONE);
  }

  @Test
  void ollamaRepeatsTheRoleAndStreamsReasoning() {
    assertThat(stream("ollama-chat-thinking.sse"))
        .containsExactly(
            ASSISTANT,
            reasoning("Simple"),
            ASSISTANT,
            reasoning(" greeting."),
            ASSISTANT,
            content("Hello"),
            ASSISTANT,
            content("!"),
            ASSISTANT,
            new Finish("stop"),
            new Usage(11, 6, -1),
            DONE);
  }

  @Test
  void tgiWithoutSpaceAfterDataColon() {
    assertThat(stream("tgi-chat.sse"))
        .containsExactly(
            ASSISTANT,
            content("Deep"),
            ASSISTANT,
            content(" learning"),
            ASSISTANT,
            content(" is"),
            new Finish("length"),
            new Usage(21, 3, -1),
            DONE);
  }

  @Test
  void errorsInsideA200Stream() {
    assertThat(stream("vllm-error-midstream.sse"))
        .containsExactly(
            ASSISTANT,
            content("Once"),
            new ErrorEvent(
                "The decoder prompt (length 8193) is longer than the maximum model length of 8192.",
                "BadRequestError",
                "400"),
            DONE);
    assertThat(stream("tgi-error-midstream.sse"))
        .containsExactly(
            ASSISTANT,
            content("The"),
            new ErrorEvent(
                "Request failed during generation: Server error: CUDA out of memory. Tried to"
                    + " allocate 1.00 GiB",
                "generation",
                null));
    assertThat(stream("openai-error-midstream.sse"))
        .containsExactly(
            ASSISTANT,
            new ErrorEvent(
                "The server had an error while processing your request. Sorry about that!",
                "server_error",
                "500"));
  }

  @Test
  void nonStreamingResponses() {
    assertThat(response("vllm-chat-response.body"))
        .containsExactly(
            ASSISTANT,
            content("The capital of France is Paris."),
            new Finish("stop"),
            new Usage(42, 8, -1));
    assertThat(response("openai-chat-tool-response.body"))
        .containsExactly(
            ASSISTANT,
            new StreamItem.ToolCallStart("call_62136354", "get_weather"),
            tool("{\"location\":\"Paris\"}"),
            new Finish("tool_calls"),
            new Usage(82, 17, 0, 0));
    assertThat(response("vllm-completions-response.body"))
        .containsExactly(content(" Paris. It is also"), new Finish("length"), new Usage(6, 5, -1));
  }

  @Test
  void errorBodies() {
    assertThat(response("vllm-error-response.body"))
        .containsExactly(
            new ErrorEvent(
                "This model's maximum context length is 8192 tokens. However, you requested 9000"
                    + " tokens (1000 in the messages, 8000 in the completion). Please reduce the"
                    + " length of the messages or completion.",
                "BadRequestError",
                "400"));
    assertThat(response("openai-error-response.body"))
        .containsExactly(
            new ErrorEvent(
                "Incorrect API key provided: sk-abc. You can find your API key at"
                    + " https://platform.openai.com/account/api-keys.",
                "invalid_request_error",
                "invalid_api_key"));
    assertThat(response("llamacpp-error-response.body"))
        .containsExactly(
            new ErrorEvent(
                "the request exceeds the available context size, try increasing it",
                "exceed_context_size_error",
                "400"));
  }
}
