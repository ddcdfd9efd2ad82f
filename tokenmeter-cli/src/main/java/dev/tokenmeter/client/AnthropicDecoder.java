package dev.tokenmeter.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.util.function.Consumer;

/**
 * Anthropic's Messages API stream (docs.anthropic.com, "Streaming Messages"): {@code
 * message_start}, then per content block {@code content_block_start}, {@code
 * content_block_delta}s and {@code content_block_stop}, then {@code message_delta} (stop reason,
 * output tokens) and {@code message_stop}; {@code ping} may come anywhere and {@code error}
 * (e.g. {@code overloaded_error}) may replace the rest of the stream.
 *
 * <p>Mapping: {@code text_delta} is answer text, {@code thinking_delta} reasoning, {@code
 * input_json_delta} tool input; {@code signature_delta} and {@code citations_delta} carry no
 * generated text. Usage is the {@code message_start} usage updated by each {@code message_delta}
 * usage (output tokens are cumulative there). Event types it does not know are skipped, as
 * Anthropic's versioning policy asks of clients.
 */
final class AnthropicDecoder implements StreamDecoder {
  private static final StreamItem.Role ASSISTANT = new StreamItem.Role("assistant");
  private static final StreamItem.Done DONE = new StreamItem.Done();

  /** The usage object of message_start, to which message_delta adds its counts. */
  private JsonNode startUsage;

  @Override
  public void event(String eventType, byte[] b, int offset, int length, Consumer<StreamItem> out) {
    JsonNode e = WireJson.object(b, offset, length, Api.ANTHROPIC);
    String type = e.path("type").asText(""); // always sent, and equal to the SSE event name
    switch (type) {
      case "message_start" -> {
        JsonNode message = e.path("message");
        startUsage = message.get("usage");
        out.accept(ASSISTANT);
        content(message.path("content"), out);
      }
      case "content_block_start" -> block(e.path("content_block"), e.path("index").asInt(-1), out);
      case "content_block_delta" -> delta(e.path("delta"), e.path("index").asInt(-1), out);
      case "message_delta" -> {
        String stop = e.path("delta").path("stop_reason").asText(null);
        if (stop != null) {
          out.accept(new StreamItem.Finish(finishReason(stop)));
        }
        JsonNode usage = e.get("usage");
        if (usage != null && usage.isObject()) {
          out.accept(usage(startUsage, usage).item());
        }
      }
      case "message_stop" -> out.accept(DONE);
      case "error" -> out.accept(error(e.path("error")));
      case "" -> throw WireJson.notThisApi("not an Anthropic event: no type", e, Api.ANTHROPIC, b, offset, length);
      default -> {} // ping, content_block_stop, and event types added after this was written
    }
  }

  @Override
  public void body(byte[] b, int offset, int length, Consumer<StreamItem> out) {
    JsonNode m = WireJson.object(b, offset, length, Api.ANTHROPIC);
    String type = m.path("type").asText("");
    if (type.equals("error")) {
      out.accept(error(m.path("error")));
      return;
    }
    if (!type.equals("message")) {
      throw WireJson.notThisApi("not an Anthropic message: type is '" + type + "'", m, Api.ANTHROPIC, b, offset, length);
    }
    out.accept(ASSISTANT);
    content(m.path("content"), out);
    String stop = m.path("stop_reason").asText(null);
    if (stop != null) {
      out.accept(new StreamItem.Finish(finishReason(stop)));
    }
    if (m.path("usage").isObject()) {
      out.accept(usage(null, m.get("usage")).item());
    }
  }

  private static void content(JsonNode blocks, Consumer<StreamItem> out) {
    for (JsonNode block : blocks) {
      block(block, -1, out);
    }
  }

  /**
   * A content block (its start event, at content-block {@code index}, or one block of a whole
   * message, -1): its text so far.
   */
  private static void block(JsonNode block, int index, Consumer<StreamItem> out) {
    switch (block.path("type").asText("")) {
      case "text" -> text(WireJson.text(block, "text"), TextKind.CONTENT, out);
      case "thinking" -> text(WireJson.text(block, "thinking"), TextKind.REASONING, out);
      case "tool_use" -> {
        out.accept(new StreamItem.ToolCallStart(WireJson.text(block, "id"), WireJson.text(block, "name"), index));
        JsonNode input = block.get("input");
        if (input != null && input.isObject() && !input.isEmpty()) {
          out.accept(new StreamItem.Text(input.toString(), TextKind.TOOL_CALL));
        }
      }
      default -> {} // redacted_thinking (encrypted, no text), server tool results
    }
  }

  /** A content block's delta; a tool_use block's input goes to the call of its {@code index}. */
  private static void delta(JsonNode delta, int index, Consumer<StreamItem> out) {
    switch (delta.path("type").asText("")) {
      case "text_delta" -> text(WireJson.text(delta, "text"), TextKind.CONTENT, out);
      case "thinking_delta" -> text(WireJson.text(delta, "thinking"), TextKind.REASONING, out);
      case "input_json_delta" -> {
        String json = WireJson.text(delta, "partial_json");
        if (json != null && index >= 0) {
          out.accept(new StreamItem.ToolCallStart(null, null, index));
        }
        text(json, TextKind.TOOL_CALL, out);
      }
      default -> {} // signature_delta, citations_delta
    }
  }

  private static void text(String text, TextKind kind, Consumer<StreamItem> out) {
    if (text != null) {
      out.accept(new StreamItem.Text(text, kind));
    }
  }

  private static StreamItem.ErrorEvent error(JsonNode error) {
    return new StreamItem.ErrorEvent(error.path("message").asText(""), error.path("type").asText(null), null);
  }

  /**
   * Usage from {@code message_start}'s object updated by a later one ({@code message_delta}'s):
   * input = {@code input_tokens} + {@code cache_read_input_tokens} + {@code
   * cache_creation_input_tokens} (Anthropic counts the three apart), output = {@code
   * output_tokens} (thinking included; Anthropic does not report the thinking part apart), cached =
   * {@code cache_read_input_tokens}.
   */
  static ApiUsage usage(JsonNode start, JsonNode later) {
    int input = WireJson.count(later, "input_tokens");
    int cacheRead = WireJson.count(later, "cache_read_input_tokens");
    int cacheWrite = WireJson.count(later, "cache_creation_input_tokens");
    if (start != null && start.isObject()) {
      input = input >= 0 ? input : WireJson.count(start, "input_tokens");
      cacheRead = cacheRead >= 0 ? cacheRead : WireJson.count(start, "cache_read_input_tokens");
      cacheWrite = cacheWrite >= 0 ? cacheWrite : WireJson.count(start, "cache_creation_input_tokens");
    }
    int totalInput = input < 0 ? -1 : WireJson.plus(input, Math.max(0, cacheRead) + Math.max(0, cacheWrite));
    return new ApiUsage(totalInput, WireJson.count(later, "output_tokens"), -1, cacheRead);
  }

  /** Anthropic's {@code stop_reason} in OpenAI's names where one exists, else as sent. */
  static String finishReason(String stop) {
    return switch (stop) {
      case "end_turn", "stop_sequence" -> "stop";
      case "max_tokens", "model_context_window_exceeded" -> "length";
      case "tool_use" -> "tool_calls";
      case "refusal" -> "content_filter";
      default -> stop; // pause_turn
    };
  }
}
