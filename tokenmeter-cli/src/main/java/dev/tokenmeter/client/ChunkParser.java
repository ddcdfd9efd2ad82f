package dev.tokenmeter.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import dev.tokenmeter.sse.SseEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Turns OpenAI-compatible payloads into {@link StreamItem}s: streamed chunks ({@code
 * chat.completion.chunk}, {@code text_completion}), the {@code [DONE]} terminator, whole
 * non-streaming responses, and the error objects of OpenAI, vLLM, TGI and llama.cpp.
 *
 * <p>Items of one payload come in this order: for each choice in array order, {@code Role}, then
 * text ({@code REASONING}, {@code CONTENT}, then one {@code TOOL_CALL} per tool call with
 * arguments), then {@code Finish}; after all choices {@code Usage}, then {@code ErrorEvent}. This
 * order holds whatever the JSON field order (llama.cpp writes {@code finish_reason} before {@code
 * delta}; a {@code usage} object may precede {@code choices}). tokenmeter sends {@code n=1}, so a
 * chunk has at most one choice in practice; with several, their items are simply concatenated.
 * Items are delivered only after the whole payload parsed: a malformed payload yields no item, only
 * a {@link ProtocolException}.
 *
 * <p>Stream payloads in the common shape (text deltas, role, finish reason, usage) are read in
 * place by {@link ChunkScanner}, without a parser per chunk; the rest (errors, tool calls, anything
 * unusual) and every whole response are parsed straight from the UTF-8 bytes with Jackson's
 * streaming parser, which gives the same items; fields other than those above ({@code id}, {@code
 * model}, {@code logprobs}, ...) are skipped without decoding. Not thread-safe (it reuses a list); it holds no per-stream state, so one parser
 * per event loop serves every stream on it.
 */
public final class ChunkParser {

  // Thread-safe and costly to build: one for the JVM. Its symbol table learns the field names once.
  private static final JsonFactory JSON = JsonFactory.builder().build();
  // Shared with ChunkScanner: the items every stream repeats, allocated once.
  static final StreamItem.Done DONE = new StreamItem.Done();
  static final StreamItem.Role ASSISTANT = new StreamItem.Role("assistant");
  static final StreamItem.Finish STOP = new StreamItem.Finish("stop");
  static final StreamItem.Finish LENGTH = new StreamItem.Finish("length");

  private final ArrayList<StreamItem> items = new ArrayList<>();
  private final ChunkScanner scanner = new ChunkScanner();
  // The payload being parsed, for error messages.
  private byte[] payload;
  private int payloadOffset;
  private int payloadLength;
  // Error parts of the payload being parsed; see finishError.
  private boolean errorSeen;
  private String errorMessage;
  private String errorType;
  private String errorCode;

  /**
   * One SSE data payload: {@code [DONE]} yields {@link StreamItem.Done}; a chunk yields its items
   * (possibly none, e.g. an empty delta).
   *
   * @throws ProtocolException if the data is not JSON, not an object, or not an OpenAI chunk
   */
  public void parse(SseEvent event, Consumer<StreamItem> out) {
    parseChunk(event.dataBytes(), 0, event.dataLength(), out);
  }

  /**
   * Like {@link #parse(SseEvent, Consumer)} for a payload held elsewhere (the proxy's buffers); the
   * bytes are read during the call only.
   */
  public void parse(byte[] data, int offset, int length, Consumer<StreamItem> out) {
    Objects.checkFromIndexSize(offset, length, data.length);
    parseChunk(data, offset, length, out);
  }

  /** Like {@link #parse(SseEvent, Consumer)} for data already decoded (not the hot path). */
  public void parse(String data, Consumer<StreamItem> out) {
    byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
    parseChunk(bytes, 0, bytes.length, out);
  }

  /**
   * A whole non-streaming response body ({@code chat.completion} with {@code choices[].message},
   * {@code text_completion} with {@code choices[].text}) or an error body: the same items a stream
   * would give, without {@code Done} (the caller knows the body is complete).
   *
   * @throws ProtocolException if the body is not JSON, not an object, or not an OpenAI response
   */
  public void parseResponse(byte[] body, int offset, int length, Consumer<StreamItem> out) {
    Objects.checkFromIndexSize(offset, length, body.length);
    parseObject(body, offset, length, out);
  }

  private void parseChunk(byte[] b, int offset, int length, Consumer<StreamItem> out) {
    if (scanner.scan(b, offset, length, out)) {
      return; // the common shape, read in place (ChunkScanner); the rest is parsed below
    }
    parseFull(b, offset, length, out);
  }

  /** The full parse of a stream payload, without the scanner (the reference it is tested against). */
  void parseFull(byte[] b, int offset, int length, Consumer<StreamItem> out) {
    if (isDone(b, offset, length)) {
      out.accept(DONE);
      return;
    }
    parseObject(b, offset, length, out);
  }

  /** True for {@code [DONE]}, allowing ASCII whitespace around it. */
  static boolean isDone(byte[] b, int offset, int length) {
    int start = offset;
    int end = offset + length;
    while (start < end && b[start] <= ' ') {
      start++;
    }
    while (end > start && b[end - 1] <= ' ') {
      end--;
    }
    return end - start == 6
        && b[start] == '['
        && b[start + 1] == 'D'
        && b[start + 2] == 'O'
        && b[start + 3] == 'N'
        && b[start + 4] == 'E'
        && b[start + 5] == ']';
  }

  private void parseObject(byte[] b, int offset, int length, Consumer<StreamItem> out) {
    items.clear();
    payload = b;
    payloadOffset = offset;
    payloadLength = length;
    errorSeen = false;
    errorMessage = null;
    errorType = null;
    errorCode = null;
    try (JsonParser p = JSON.createParser(b, offset, length)) {
      readRoot(p);
    } catch (JsonProcessingException e) {
      throw fail("malformed JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw fail("unreadable JSON: " + e.getMessage(), e);
    } finally {
      payload = null; // do not keep a large body alive
    }
    for (int i = 0; i < items.size(); i++) {
      out.accept(items.get(i));
    }
    items.clear();
  }

  private void readRoot(JsonParser p) throws IOException {
    JsonToken t = p.nextToken();
    if (t != JsonToken.START_OBJECT) {
      throw fail(t == null ? "empty payload" : "expected a JSON object, got " + describe(t), null);
    }
    boolean recognized = false;
    boolean objectIsError = false;
    StreamItem.Usage usage = null;
    String name;
    while ((name = p.nextFieldName()) != null) {
      t = p.nextToken();
      switch (name) {
        case "choices" -> {
          recognized = true;
          readChoices(p, t);
        }
        case "usage" -> {
          recognized = true;
          usage = readUsage(p, t);
        }
        case "error" -> {
          recognized = true;
          readError(p, t);
        }
        // vLLM's HTTP error body: {"object":"error","message":...,"type":...,"code":...}
        case "object" -> {
          objectIsError = t == JsonToken.VALUE_STRING && is(p, "error");
          p.skipChildren(); // a nested value is skipped whole, not read as the root's fields
        }
        case "message" -> errorMessage = scalar(p, t, errorMessage);
        case "type" -> errorType = scalar(p, t, errorType);
        case "code" -> errorCode = scalar(p, t, errorCode);
        case "error_type" -> errorType = scalar(p, t, errorType); // TGI
        default -> p.skipChildren();
      }
    }
    if (p.nextToken() != null) {
      throw fail("data after the end of the JSON object", null);
    }
    if (!recognized && !objectIsError) {
      throw fail("not an OpenAI chunk: no choices, usage or error", null);
    }
    if (usage != null) {
      items.add(usage);
    }
    if (errorSeen || objectIsError) {
      items.add(
          new StreamItem.ErrorEvent(
              errorMessage == null ? "" : errorMessage, errorType, errorCode));
    }
  }

  private void readChoices(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return;
    }
    expect(t, JsonToken.START_ARRAY, "choices");
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      expect(t, JsonToken.START_OBJECT, "choices[]");
      readChoice(p);
    }
  }

  private void readChoice(JsonParser p) throws IOException {
    StreamItem.Finish finish = null;
    String name;
    while ((name = p.nextFieldName()) != null) {
      JsonToken t = p.nextToken();
      switch (name) {
        case "delta", "message" -> readDelta(p, t);
        case "text" -> {
          String text = text(p, t, "choices[].text");
          if (text != null) {
            items.add(new StreamItem.Text(text, TextKind.CONTENT));
          }
        }
        case "finish_reason" -> finish = readFinish(p, t);
        default -> p.skipChildren();
      }
    }
    if (finish != null) {
      items.add(finish);
    }
  }

  /** {@code delta} (streaming) or {@code message} (non-streaming). */
  private void readDelta(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return;
    }
    expect(t, JsonToken.START_OBJECT, "delta");
    int first = items.size(); // tool call texts are added as read; the rest go before them
    StreamItem.Role role = null;
    String content = null;
    String reasoning = null;
    String reasoningContent = null;
    String name;
    while ((name = p.nextFieldName()) != null) {
      t = p.nextToken();
      switch (name) {
        case "content" -> content = text(p, t, "delta.content");
        case "reasoning" -> reasoning = text(p, t, "delta.reasoning");
        case "reasoning_content" -> reasoningContent = text(p, t, "delta.reasoning_content");
        case "tool_calls" -> readToolCalls(p, t);
        case "role" -> role = readRole(p, t);
        default -> p.skipChildren();
      }
    }
    // vLLM deprecated reasoning_content for reasoning and, for compatibility, sends both with the
    // same text (vllm-project/vllm#27755): count it once, preferring the newer field as vLLM does.
    String thought = reasoning != null ? reasoning : reasoningContent;
    int at = first;
    if (role != null) {
      items.add(at++, role);
    }
    if (thought != null) {
      items.add(at++, new StreamItem.Text(thought, TextKind.REASONING));
    }
    if (content != null) {
      items.add(at, new StreamItem.Text(content, TextKind.CONTENT));
    }
  }

  private void readToolCalls(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return;
    }
    expect(t, JsonToken.START_ARRAY, "tool_calls");
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      expect(t, JsonToken.START_OBJECT, "tool_calls[]");
      int at = items.size(); // a call's start goes before its arguments, whatever the field order
      String id = null;
      String function = null;
      int index = -1;
      String name;
      while ((name = p.nextFieldName()) != null) {
        t = p.nextToken();
        if (name.equals("id")) {
          id = text(p, t, "tool_calls[].id");
          continue;
        }
        if (name.equals("index") && t == JsonToken.VALUE_NUMBER_INT) {
          index = p.getIntValue();
          continue;
        }
        if (!name.equals("function") || t == JsonToken.VALUE_NULL) {
          p.skipChildren();
          continue;
        }
        expect(t, JsonToken.START_OBJECT, "tool_calls[].function");
        while ((name = p.nextFieldName()) != null) {
          t = p.nextToken();
          if (name.equals("arguments")) {
            String arguments = text(p, t, "tool_calls[].function.arguments");
            if (arguments != null && !arguments.isEmpty()) {
              items.add(new StreamItem.Text(arguments, TextKind.TOOL_CALL));
            }
          } else if (name.equals("name")) {
            function = text(p, t, "tool_calls[].function.name");
          } else {
            p.skipChildren();
          }
        }
      }
      // The first chunk of a streamed call names it (id and function.name); later ones add arguments,
      // keyed by index: parallel calls' deltas (index 0, 1, ...) go each to its own call.
      if (id != null || function != null || index >= 0 && items.size() > at) {
        items.add(at, new StreamItem.ToolCallStart(id, function, index));
      }
    }
  }

  private StreamItem.Usage readUsage(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    expect(t, JsonToken.START_OBJECT, "usage");
    int prompt = -1;
    int completion = -1;
    int reasoning = -1;
    int cached = -1;
    String name;
    while ((name = p.nextFieldName()) != null) {
      t = p.nextToken();
      switch (name) {
        case "prompt_tokens" -> prompt = count(p, t, "usage.prompt_tokens");
        case "completion_tokens" -> completion = count(p, t, "usage.completion_tokens");
        case "completion_tokens_details" ->
            reasoning = detail(p, t, "usage.completion_tokens_details", "reasoning_tokens", reasoning);
        case "prompt_tokens_details" ->
            cached = detail(p, t, "usage.prompt_tokens_details", "cached_tokens", cached);
        default -> p.skipChildren();
      }
    }
    return new StreamItem.Usage(prompt, completion, reasoning, cached);
  }

  /** The count {@code field} of the details object {@code what}; else {@code previous}. */
  private int detail(JsonParser p, JsonToken t, String what, String field, int previous)
      throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return previous;
    }
    expect(t, JsonToken.START_OBJECT, what);
    int value = previous;
    String name;
    while ((name = p.nextFieldName()) != null) {
      t = p.nextToken();
      if (name.equals(field)) {
        value = count(p, t, what + "." + field);
      } else {
        p.skipChildren();
      }
    }
    return value;
  }

  /** {@code "error": {...}} (OpenAI, vLLM, llama.cpp) or {@code "error": "text"} (TGI). */
  private void readError(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return;
    }
    errorSeen = true;
    if (t != JsonToken.START_OBJECT) {
      errorMessage = scalar(p, t, null);
      return;
    }
    String name;
    while ((name = p.nextFieldName()) != null) {
      t = p.nextToken();
      switch (name) {
        case "message" -> errorMessage = scalar(p, t, errorMessage);
        case "type" -> errorType = scalar(p, t, errorType);
        case "code" -> errorCode = scalar(p, t, errorCode);
        default -> p.skipChildren();
      }
    }
  }

  private StreamItem.Role readRole(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    expect(t, JsonToken.VALUE_STRING, "delta.role");
    // Ollama repeats the role in every chunk: do not allocate for it.
    return is(p, "assistant") ? ASSISTANT : new StreamItem.Role(p.getText());
  }

  private StreamItem.Finish readFinish(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    expect(t, JsonToken.VALUE_STRING, "finish_reason");
    return is(p, "stop") ? STOP : is(p, "length") ? LENGTH : new StreamItem.Finish(p.getText());
  }

  /** A text field: its string, or null when null or empty (an empty delta carries no token). */
  private String text(JsonParser p, JsonToken t, String what) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    expect(t, JsonToken.VALUE_STRING, what);
    return p.getTextLength() == 0 ? null : p.getText();
  }

  private int count(JsonParser p, JsonToken t, String what) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return -1;
    }
    expect(t, JsonToken.VALUE_NUMBER_INT, what);
    return p.getIntValue();
  }

  /** A scalar as text (numbers as written: error codes are numbers or strings); else previous. */
  private static String scalar(JsonParser p, JsonToken t, String previous) throws IOException {
    if (t.isScalarValue()) {
      return t == JsonToken.VALUE_NULL ? null : p.getText();
    }
    p.skipChildren();
    return previous;
  }

  /** Whether the current string token equals {@code ascii}, without allocating. */
  private static boolean is(JsonParser p, String ascii) throws IOException {
    if (p.getTextLength() != ascii.length()) {
      return false;
    }
    char[] chars = p.getTextCharacters();
    int offset = p.getTextOffset();
    for (int i = 0; i < ascii.length(); i++) {
      if (chars[offset + i] != ascii.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private void expect(JsonToken actual, JsonToken expected, String what) {
    if (actual != expected) {
      throw fail(what + " should be " + describe(expected) + ", got " + describe(actual), null);
    }
  }

  private static String describe(JsonToken t) {
    return switch (t) {
      case START_OBJECT -> "an object";
      case START_ARRAY -> "an array";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT -> "an integer";
      case VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      default -> t.name();
    };
  }

  private ProtocolException fail(String problem, Throwable cause) {
    return new ProtocolException(problem, payload, payloadOffset, payloadLength, cause);
  }
}
