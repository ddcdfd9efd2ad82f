package dev.tokenmeter.client;

import static dev.tokenmeter.client.ChunkParserTranscriptTest.ASSISTANT;
import static dev.tokenmeter.client.ChunkParserTranscriptTest.content;
import static dev.tokenmeter.client.ChunkParserTranscriptTest.reasoning;
import static dev.tokenmeter.client.ChunkParserTranscriptTest.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.StreamItem.Done;
import dev.tokenmeter.core.request.StreamItem.ErrorEvent;
import dev.tokenmeter.core.request.StreamItem.Finish;
import dev.tokenmeter.core.request.StreamItem.Role;
import dev.tokenmeter.core.request.StreamItem.Usage;
import dev.tokenmeter.sse.SseEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkParserTest {

  private final ChunkParser parser = new ChunkParser();

  private List<StreamItem> parse(String data) {
    List<StreamItem> items = new ArrayList<>();
    parser.parse(SseEvent.of(null, data, null), items::add);
    List<StreamItem> viaString = new ArrayList<>();
    parser.parse(data, viaString::add);
    assertThat(viaString).isEqualTo(items);
    byte[] padded = ("<" + data + ">").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    List<StreamItem> viaBytes = new ArrayList<>();
    parser.parse(padded, 1, padded.length - 2, viaBytes::add);
    assertThat(viaBytes).isEqualTo(items);
    return items;
  }

  @Test
  void doneIsRecognizedExactlyWithSurroundingWhitespaceAllowed() {
    assertThat(parse("[DONE]")).containsExactly(new Done());
    assertThat(parse(" [DONE]\n")).containsExactly(new Done());
    assertThatThrownBy(() -> parse("[DONE]x")).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> parse("[done]")).isInstanceOf(ProtocolException.class);
  }

  @Test
  void itemsComeInContractOrderWhateverTheFieldOrder() {
    String chunk =
        "{\"usage\":{\"completion_tokens\":1},\"choices\":[{\"finish_reason\":\"stop\","
            + "\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"{}\"}}],\"content\":\"x\","
            + "\"reasoning_content\":\"r\",\"role\":\"assistant\"}}]}";
    assertThat(parse(chunk))
        .containsExactly(
            ASSISTANT,
            reasoning("r"),
            content("x"),
            tool("{}"),
            new Finish("stop"),
            new Usage(-1, 1, -1));
  }

  @Test
  void aNestedObjectValueIsSkippedWholeNotReadAsTheRootsFields() {
    // Found by ChunkScannerFuzzIT: "object" read only as a string, so the fields inside a nested
    // "object" were taken for the root's, its closing brace ended the root early, and the rest of
    // the chunk was rejected as data after the end; the scanner, right, skipped it whole.
    String chunk =
        "{\"object\":{\"\":null,\"choices\":[]},\"choices\":[{\"delta\":{\"content\":\"x\"}}]}";
    assertThat(parse(chunk)).containsExactly(content("x"));
  }

  @Test
  void severalChoicesAreEmittedInArrayOrder() {
    String chunk =
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":\"length\"},"
            + "{\"index\":1,\"delta\":{\"role\":\"tool\",\"content\":\"b\"}}]}";
    assertThat(parse(chunk))
        .containsExactly(content("a"), new Finish("length"), new Role("tool"), content("b"));
  }

  @Test
  void severalToolCallsInOneDeltaEachYieldText() {
    String chunk =
        "{\"choices\":[{\"delta\":{\"tool_calls\":["
            + "{\"index\":0,\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}},"
            + "{\"index\":1,\"function\":{\"arguments\":\"\"}},"
            + "{\"index\":2,\"function\":null},"
            + "{\"index\":3,\"function\":{\"arguments\":\"{}\"}}]}}]}";
    // the first names its function (a start item before its arguments); the others add arguments
    // only, each keyed by its index (a start without id and name), so parallel calls stay apart
    assertThat(parse(chunk)).containsExactly(
        new dev.tokenmeter.core.request.StreamItem.ToolCallStart(null, "f", 0), tool("{\"a\":1}"),
        new dev.tokenmeter.core.request.StreamItem.ToolCallStart(null, null, 3), tool("{}"));
  }

  @Test
  void theNewerReasoningFieldWinsWhenBothArePresent() {
    assertThat(
            parse(
                "{\"choices\":[{\"delta\":{\"reasoning_content\":\"old\",\"reasoning\":\"new\"}}]}"))
        .containsExactly(reasoning("new"));
    assertThat(
            parse("{\"choices\":[{\"delta\":{\"reasoning\":\"\",\"reasoning_content\":\"old\"}}]}"))
        .containsExactly(reasoning("old"));
  }

  @Test
  void emptyOrNullTextYieldsNothing() {
    assertThat(parse("{\"choices\":[{\"index\":0,\"delta\":{}}]}")).isEmpty();
    assertThat(parse("{\"choices\":[{\"delta\":{\"content\":\"\",\"reasoning\":null}}]}"))
        .isEmpty();
    assertThat(parse("{\"choices\":[{\"text\":\"\"}]}")).isEmpty();
    assertThat(parse("{\"choices\":[],\"usage\":null}")).isEmpty();
    assertThat(parse("{\"choices\":null}")).isEmpty();
    assertThat(parse("{\"choices\":[{\"delta\":null,\"finish_reason\":null}]}")).isEmpty();
  }

  @Test
  void decodesEscapesAndMultiByteText() {
    assertThat(parse("{\"choices\":[{\"delta\":{\"content\":\"\\u00e9\\n\\\"日本👩‍💻\"}}]}"))
        .containsExactly(content("é\n\"日本👩‍💻"));
  }

  @Test
  void unknownFieldsAreSkippedWithTheirChildren() {
    String chunk =
        "{\"id\":\"x\",\"content\":\"top-level is not a delta\",\"choices\":[{\"delta\":"
            + "{\"content\":\"yes\",\"extra\":{\"content\":\"no\",\"a\":[1,{\"content\":\"no\"}]}},"
            + "\"logprobs\":{\"content\":[{\"token\":\"no\",\"bytes\":[1,2]}]},"
            + "\"text_offset\":[],\"stop_reason\":128009}],\"timings\":{\"x\":1.5}}";
    assertThat(parse(chunk)).containsExactly(content("yes"));
  }

  @Test
  void usageFieldsAbsentOrNullAreMinusOne() {
    assertThat(parse("{\"choices\":[],\"usage\":{}}")).containsExactly(new Usage(-1, -1, -1));
    assertThat(
            parse(
                "{\"usage\":{\"prompt_tokens\":null,\"completion_tokens\":3,"
                    + "\"completion_tokens_details\":null,\"total_tokens\":3}}"))
        .containsExactly(new Usage(-1, 3, -1));
    assertThat(
            parse(
                "{\"usage\":{\"completion_tokens_details\":{\"audio_tokens\":0,"
                    + "\"reasoning_tokens\":12},\"prompt_tokens\":7}}"))
        .containsExactly(new Usage(7, -1, 12));
  }

  @Test
  void errorCodesBecomeStringsAndMissingPartsNull() {
    assertThat(parse("{\"error\":{\"message\":\"m\",\"type\":\"t\",\"code\":429}}"))
        .containsExactly(new ErrorEvent("m", "t", "429"));
    assertThat(parse("{\"error\":{\"message\":\"m\",\"code\":\"rate_limit_exceeded\"}}"))
        .containsExactly(new ErrorEvent("m", null, "rate_limit_exceeded"));
    assertThat(parse("{\"error\":{\"code\":null}}"))
        .containsExactly(new ErrorEvent("", null, null));
    assertThat(parse("{\"error\":\"boom\"}")).containsExactly(new ErrorEvent("boom", null, null));
    assertThat(
            parse(
                "{\"object\":\"error\",\"message\":\"bad\",\"type\":\"BadRequestError\",\"code\":400.0}"))
        .containsExactly(new ErrorEvent("bad", "BadRequestError", "400.0"));
    // A top-level "message" alone is not an error.
    assertThatThrownBy(() -> parse("{\"message\":\"hi\"}"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("not an OpenAI chunk");
  }

  @Test
  void malformedPayloadsAreProtocolExceptionsNamingTheProblem() {
    assertThatThrownBy(() -> parse("hello"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith("malformed JSON")
        .hasMessageEndingWith("payload: \"hello\"");
    assertThatThrownBy(() -> parse("")).hasMessageContaining("empty payload");
    assertThatThrownBy(() -> parse("[1]"))
        .hasMessageContaining("expected a JSON object, got an array");
    assertThatThrownBy(() -> parse("\"s\"")).hasMessageContaining("got a string");
    assertThatThrownBy(() -> parse("{}")).hasMessageContaining("not an OpenAI chunk");
    assertThatThrownBy(() -> parse("{\"choices\":[")).hasMessageStartingWith("malformed JSON");
    assertThatThrownBy(() -> parse("{\"choices\":[]} {}"))
        .hasMessageContaining("data after the end");
    assertThatThrownBy(() -> parse("{\"choices\":\"x\"}"))
        .hasMessageContaining("choices should be an array, got a string");
    assertThatThrownBy(() -> parse("{\"choices\":[{\"delta\":{\"content\":1}}]}"))
        .hasMessageContaining("delta.content should be a string, got an integer");
    assertThatThrownBy(() -> parse("{\"usage\":{\"prompt_tokens\":1e3}}"))
        .hasMessageContaining("usage.prompt_tokens should be an integer, got a number");
    assertThatThrownBy(() -> parse("{\"usage\":{\"prompt_tokens\":99999999999}}"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageStartingWith("malformed JSON");
  }

  @Test
  void aFailedPayloadEmitsNoItemsAndTheParserRecovers() {
    List<StreamItem> items = new ArrayList<>();
    assertThatThrownBy(
            () ->
                parser.parse(
                    "{\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"usage\":5}", items::add))
        .hasMessageContaining("usage should be an object, got an integer");
    assertThat(items).isEmpty();
    parser.parse("{\"choices\":[{\"delta\":{\"content\":\"y\"}}]}", items::add);
    assertThat(items).containsExactly(content("y"));
  }

  @Test
  void exceptionMessagesShowAShortOneLineExcerpt() {
    String longPayload = "{\"choices\":[{\"delta\":{\"content\":\"" + "é".repeat(500) + "\n\"}}";
    assertThatThrownBy(() -> parse(longPayload))
        .isInstanceOf(ProtocolException.class)
        .satisfies(
            e -> {
              String message = e.getMessage();
              String excerpt = message.substring(message.indexOf("payload: ") + 9);
              assertThat(excerpt).hasSizeLessThanOrEqualTo(200).endsWith("...\"");
              assertThat(message).doesNotContain("\n");
            });
    assertThat(ProtocolException.excerpt("a\r\nb".getBytes(), 0, 4)).isEqualTo("\"a\\r\\nb\"");
    String emoji = "👩".repeat(150); // surrogate pairs: the cut must not split one
    String cut =
        ProtocolException.excerpt(emoji.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, 600);
    assertThat(cut).hasSizeLessThanOrEqualTo(200);
    assertThat(Character.isHighSurrogate(cut.charAt(cut.length() - 5))).isFalse();
  }

  @Test
  void responsesMayBePartOfALargerArray() {
    byte[] body = "xx{\"choices\":[{\"message\":{\"content\":\"hi\"}}]}yy".getBytes();
    List<StreamItem> items = new ArrayList<>();
    parser.parseResponse(body, 2, body.length - 4, items::add);
    assertThat(items).containsExactly(content("hi"));
  }

  @Test
  void cachedPromptTokensAreReadBesideReasoningTokens() {
    assertThat(parse("{\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":20,"
            + "\"prompt_tokens_details\":{\"audio_tokens\":0,\"cached_tokens\":64},"
            + "\"completion_tokens_details\":{\"reasoning_tokens\":12}}}"))
        .containsExactly(new Usage(100, 20, 12, 64));
    assertThat(parse("{\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"prompt_tokens_details\":null}}"))
        .containsExactly(new Usage(1, -1, -1, -1));
    assertThatThrownBy(() -> parse("{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":\"x\"}}}"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("usage.prompt_tokens_details.cached_tokens");
  }
}
