package dev.tokenmeter.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.util.function.Consumer;

/**
 * Ollama's native {@code /api/chat} and {@code /api/generate} (github.com/ollama/ollama,
 * docs/api.md): newline-delimited JSON, one object per line; {@code message.content} (chat) or
 * {@code response} (generate) is answer text, {@code message.thinking} or {@code thinking}
 * reasoning, {@code message.tool_calls[].function.arguments} tool input. The line with {@code
 * "done": true} ends the stream: {@code done_reason}, {@code prompt_eval_count} (input) and {@code
 * eval_count} (output). An error is {@code {"error":"…"}}, on its own line or as the whole body.
 *
 * <p>Ollama also reports its own durations ({@code total_duration}, {@code eval_duration}, ...,
 * nanoseconds) in the last line; they are not recorded yet.
 */
final class OllamaDecoder implements StreamDecoder {
  private static final StreamItem.Done DONE = new StreamItem.Done();
  private static final StreamItem.Role ASSISTANT = new StreamItem.Role("assistant");

  @Override
  public void event(String eventType, byte[] b, int offset, int length, Consumer<StreamItem> out) {
    if (items(b, offset, length, out)) {
      out.accept(DONE);
    }
  }

  @Override
  public void body(byte[] b, int offset, int length, Consumer<StreamItem> out) {
    items(b, offset, length, out);
  }

  /** The items of one object; true when it was the last ({@code "done": true}). */
  private static boolean items(byte[] b, int offset, int length, Consumer<StreamItem> out) {
    JsonNode o = WireJson.object(b, offset, length, Api.OLLAMA);
    JsonNode error = o.get("error");
    if (error != null && !error.isNull()) {
      out.accept(new StreamItem.ErrorEvent(error.isTextual() ? error.asText() : error.toString(), null, null));
      return false;
    }
    if (!o.path("done").isBoolean()) {
      throw WireJson.notThisApi("not an Ollama object: no done field", o, Api.OLLAMA, b, offset, length);
    }
    JsonNode message = o.get("message");
    if (message != null && message.isObject()) {
      if (message.path("role").asText("").equals("assistant")) {
        out.accept(ASSISTANT);
      }
      text(WireJson.text(message, "thinking"), TextKind.REASONING, out);
      text(WireJson.text(message, "content"), TextKind.CONTENT, out);
      for (JsonNode call : message.path("tool_calls")) {
        JsonNode args = call.path("function").path("arguments");
        if (!args.isMissingNode()) {
          out.accept(new StreamItem.Text(args.isTextual() ? args.asText() : args.toString(), TextKind.TOOL_CALL));
        }
      }
    } else {
      text(WireJson.text(o, "thinking"), TextKind.REASONING, out);
      text(WireJson.text(o, "response"), TextKind.CONTENT, out);
    }
    if (!o.path("done").asBoolean()) {
      return false;
    }
    String reason = o.path("done_reason").asText(null);
    if (reason != null) {
      out.accept(new StreamItem.Finish(reason));
    }
    out.accept(usage(o).item());
    return true;
  }

  private static void text(String text, TextKind kind, Consumer<StreamItem> out) {
    if (text != null) {
      out.accept(new StreamItem.Text(text, kind));
    }
  }

  /** input = {@code prompt_eval_count}, output = {@code eval_count} (thinking included). */
  static ApiUsage usage(JsonNode last) {
    return new ApiUsage(WireJson.count(last, "prompt_eval_count"), WireJson.count(last, "eval_count"), -1, -1);
  }
}
