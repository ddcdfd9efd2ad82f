package dev.tokenmeter.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.util.function.Consumer;

/**
 * OpenAI's Responses API stream (platform.openai.com, "Streaming API responses"): typed events
 * from {@code response.created} to one of {@code response.completed}, {@code
 * response.incomplete} or {@code response.failed}, or an {@code error} event.
 *
 * <p>Mapping: {@code response.output_text.delta} and {@code response.refusal.delta} are answer
 * text; {@code response.reasoning_summary_text.delta} and {@code response.reasoning_text.delta}
 * reasoning; {@code response.function_call_arguments.delta} tool input. The terminal event gives
 * the finish reason, the usage and the end of the stream; {@code response.failed} and {@code
 * error} are stream errors. Other events (items and parts added or done, the full text repeated in
 * {@code *.done}) carry no new text and are skipped.
 */
final class ResponsesDecoder implements StreamDecoder {
  private static final StreamItem.Done DONE = new StreamItem.Done();

  @Override
  public void event(String eventType, byte[] b, int offset, int length, Consumer<StreamItem> out) {
    if (isDone(b, offset, length)) {
      out.accept(DONE); // not sent by OpenAI; some compatible servers end with it
      return;
    }
    JsonNode e = WireJson.object(b, offset, length, Api.RESPONSES);
    String type = e.path("type").asText("");
    switch (type) {
      case "response.output_text.delta", "response.refusal.delta" -> text(e, TextKind.CONTENT, out);
      case "response.reasoning_summary_text.delta", "response.reasoning_text.delta" ->
          text(e, TextKind.REASONING, out);
      case "response.function_call_arguments.delta" -> {
        int index = e.path("output_index").asInt(-1); // parallel calls: each item's arguments to its own call
        if (index >= 0) {
          out.accept(new StreamItem.ToolCallStart(null, null, index));
        }
        text(e, TextKind.TOOL_CALL, out);
      }
      case "response.output_item.added" -> {
        JsonNode item = e.path("item");
        if (item.path("type").asText("").equals("function_call")) {
          out.accept(new StreamItem.ToolCallStart(WireJson.text(item, "call_id"), WireJson.text(item, "name"),
              e.path("output_index").asInt(-1)));
        }
      }
      case "response.completed", "response.incomplete", "response.failed" -> {
        ended(e.path("response"), out);
        out.accept(DONE);
      }
      case "error" -> {
        JsonNode error = e.path("error");
        out.accept(error.isObject() ? error(error)
            : new StreamItem.ErrorEvent(e.path("message").asText(""), null, e.path("code").asText(null)));
      }
      case "" -> throw WireJson.notThisApi("not a Responses event: no type", e, Api.RESPONSES, b, offset, length);
      default -> {}
    }
  }

  @Override
  public void body(byte[] b, int offset, int length, Consumer<StreamItem> out) {
    JsonNode r = WireJson.object(b, offset, length, Api.RESPONSES);
    if (!r.path("object").asText("").equals("response")) {
      if (r.path("error").isObject()) {
        out.accept(error(r.path("error")));
        return;
      }
      throw WireJson.notThisApi("not a Responses object", r, Api.RESPONSES, b, offset, length);
    }
    for (JsonNode item : r.path("output")) {
      switch (item.path("type").asText("")) {
        case "message" -> {
          for (JsonNode part : item.path("content")) {
            String text = part.path("type").asText("").equals("refusal")
                ? WireJson.text(part, "refusal") : WireJson.text(part, "text");
            emit(text, TextKind.CONTENT, out);
          }
        }
        case "reasoning" -> {
          for (JsonNode part : item.path("summary")) {
            emit(WireJson.text(part, "text"), TextKind.REASONING, out);
          }
        }
        case "function_call" -> {
          out.accept(new StreamItem.ToolCallStart(WireJson.text(item, "call_id"), WireJson.text(item, "name")));
          emit(WireJson.text(item, "arguments"), TextKind.TOOL_CALL, out);
        }
        default -> {}
      }
    }
    ended(r, out);
  }

  /** The finish, usage or error of a finished response object. */
  private static void ended(JsonNode response, Consumer<StreamItem> out) {
    String status = response.path("status").asText("");
    switch (status) {
      case "completed" -> out.accept(new StreamItem.Finish("stop"));
      case "incomplete" -> {
        String reason = response.path("incomplete_details").path("reason").asText("");
        out.accept(new StreamItem.Finish(reason.equals("max_output_tokens") ? "length" : reason));
      }
      default -> {}
    }
    if (response.path("usage").isObject()) {
      out.accept(usage(response.get("usage")).item());
    }
    if (status.equals("failed")) {
      JsonNode error = response.path("error");
      out.accept(
          error.isObject() ? error(error) : new StreamItem.ErrorEvent("response.failed", null, null));
    }
  }

  private static void text(JsonNode event, TextKind kind, Consumer<StreamItem> out) {
    emit(WireJson.text(event, "delta"), kind, out);
  }

  private static void emit(String text, TextKind kind, Consumer<StreamItem> out) {
    if (text != null) {
      out.accept(new StreamItem.Text(text, kind));
    }
  }

  private static StreamItem.ErrorEvent error(JsonNode error) {
    return new StreamItem.ErrorEvent(
        error.path("message").asText(""), error.path("type").asText(null), error.path("code").asText(null));
  }

  /**
   * {@code input_tokens} (cached included), {@code output_tokens} (reasoning included), {@code
   * output_tokens_details.reasoning_tokens}, {@code input_tokens_details.cached_tokens}.
   */
  static ApiUsage usage(JsonNode u) {
    return new ApiUsage(
        WireJson.count(u, "input_tokens"),
        WireJson.count(u, "output_tokens"),
        WireJson.count(u.path("output_tokens_details"), "reasoning_tokens"),
        WireJson.count(u.path("input_tokens_details"), "cached_tokens"));
  }

  private static boolean isDone(byte[] b, int offset, int length) {
    String s = new String(b, offset, Math.min(length, 16), java.nio.charset.StandardCharsets.US_ASCII).strip();
    return length <= 16 && s.equals("[DONE]");
  }
}
