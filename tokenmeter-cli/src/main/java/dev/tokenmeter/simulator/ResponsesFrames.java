package dev.tokenmeter.simulator;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * OpenAI's Responses stream, as documented at platform.openai.com/docs/api-reference/responses-streaming:
 * {@code response.created}, {@code response.in_progress}, {@code response.output_item.added} (one
 * message), {@code response.content_part.added} (one {@code output_text} part), one {@code
 * response.output_text.delta} per token, then {@code response.output_text.done}, {@code
 * response.content_part.done}, {@code response.output_item.done} (the whole text again) and
 * {@code response.completed} ({@code incomplete} with reason {@code max_output_tokens} when cut)
 * with the usage. Every event has its {@code event:} line and a {@code sequence_number}. The EOS
 * token has no text and so no delta. The injected error is {@code response.failed} ({@code
 * server_error}).
 *
 * <p>A tool call ({@link ToolCalls}) is one {@code function_call} output item instead: {@code
 * response.output_item.added} with the item ({@code id} {@code fc_…}, {@code call_id}, {@code
 * name}, {@code arguments ""}), one {@code response.function_call_arguments.delta} per token of
 * the arguments, then {@code response.function_call_arguments.done} and {@code
 * response.output_item.done} with the whole arguments, as documented at
 * platform.openai.com/docs/guides/function-calling ("Streaming"). Parallel calls are one {@code
 * function_call} item each, at output index 0, 1, ... ({@code id} {@code fc_…_1}, ...): the next
 * item is added when the previous one's arguments are done.
 */
final class ResponsesFrames implements WireFrames {
  private final String id;
  private final String messageId;
  private final long createdSeconds;
  private final String quotedModel;
  private final ByteArrayOutputStream text = new ByteArrayOutputStream(256); // escaped, for the *.done events
  private int sequence;
  private int cachedTokens;

  private final ToolCalls.Reply toolCalls;
  private final int[] starts;
  /** Tokens written, the item they go to, its delta head, and the items already done. */
  private int token;
  private int item;
  private byte[] deltaHead;
  private final StringBuilder doneItems = new StringBuilder();

  ResponsesFrames(String id, long createdSeconds, String quotedModel, ToolCalls.Reply toolCalls) {
    this.id = id;
    this.toolCalls = toolCalls;
    this.starts = toolCalls == null ? null : toolCalls.starts();
    String suffix = id.substring(id.indexOf('_') + 1);
    this.messageId = (toolCalls == null ? "msg_" : "fc_") + suffix;
    this.createdSeconds = createdSeconds;
    this.quotedModel = quotedModel;
    this.deltaHead = toolCalls == null
        ? ("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\""
            + messageId + "\",\"output_index\":0,\"content_index\":0,\"delta\":\"").getBytes(UTF_8)
        : callDeltaHead(0);
  }

  /** Item {@code i}'s id: {@code fc_…}, then {@code fc_…_1}, ... */
  private String itemId(int i) {
    return i == 0 ? messageId : messageId + "_" + i;
  }

  private byte[] callDeltaHead(int i) {
    return ("event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\","
        + "\"item_id\":\"" + itemId(i) + "\",\"output_index\":" + i + ",\"delta\":\"").getBytes(UTF_8);
  }

  /** Call {@code i}'s function_call item; {@code arguments} escaped JSON-string content. */
  private String call(int i, String status, String arguments) {
    return "{\"id\":\"" + itemId(i) + "\",\"type\":\"function_call\",\"status\":\"" + status + "\",\"arguments\":\""
        + arguments + "\",\"call_id\":\"" + toolCalls.id(i) + "\",\"name\":" + Bodies.quote(toolCalls.call(i).name()) + "}";
  }

  /** Ends item {@code item}: its arguments done, the item done (kept for the response's output). */
  private void endItem(ByteBuf out, String status) {
    String arguments = text.toString(UTF_8);
    event(out, "response.function_call_arguments.done", "\"item_id\":\"" + itemId(item)
        + "\",\"output_index\":" + item + ",\"arguments\":\"" + arguments + "\"");
    String done = call(item, status, arguments);
    event(out, "response.output_item.done", "\"output_index\":" + item + ",\"item\":" + done);
    doneItems.append(doneItems.isEmpty() ? "" : ",").append(done);
    text.reset();
  }

  @Override
  public boolean hasOpening() {
    return true;
  }

  @Override
  public void writeOpening(ByteBuf out) {
    String inProgress = response("in_progress", "[]", "null", null);
    event(out, "response.created", "\"response\":" + inProgress);
    event(out, "response.in_progress", "\"response\":" + inProgress);
    if (toolCalls != null) {
      event(out, "response.output_item.added", "\"output_index\":0,\"item\":" + call(0, "in_progress", ""));
      return;
    }
    event(out, "response.output_item.added", "\"output_index\":0,\"item\":" + message("in_progress", "[]"));
    event(out, "response.content_part.added", "\"item_id\":\"" + messageId
        + "\",\"output_index\":0,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[]}");
  }

  @Override
  public void writeToken(ByteBuf out, byte[] tokenJson, String finishReason) {
    if (toolCalls != null) {
      while (item + 1 < starts.length && token >= starts[item + 1]) {
        endItem(out, "completed");
        item++;
        deltaHead = callDeltaHead(item);
        event(out, "response.output_item.added", "\"output_index\":" + item + ",\"item\":" + call(item, "in_progress", ""));
      }
      token++;
    }
    if (tokenJson.length == 0) {
      return;
    }
    text.writeBytes(tokenJson);
    out.writeBytes(deltaHead);
    out.writeBytes(tokenJson);
    out.writeCharSequence((toolCalls == null ? "\",\"logprobs\":[]" : "\"") + ",\"sequence_number\":" + sequence++ + "}\n\n", UTF_8);
  }

  @Override
  public int tokenChunkBound(byte[] tokenJson) {
    return deltaHead.length + tokenJson.length + 64 + (toolCalls == null ? 0 : 1024 + 2 * text.size());
  }

  @Override
  public void writeClosing(ByteBuf out, String finishReason, int promptTokens, int completionTokens, boolean includeUsage) {
    boolean cut = "length".equals(finishReason);
    if (toolCalls != null) {
      endItem(out, cut ? "incomplete" : "completed");
      event(out, cut ? "response.incomplete" : "response.completed",
          "\"response\":" + response(cut ? "incomplete" : "completed", "[" + doneItems + "]", usage(promptTokens, completionTokens),
              cut ? "{\"reason\":\"max_output_tokens\"}" : null));
      return;
    }
    String whole = "\"" + text.toString(UTF_8) + "\"";
    String part = "{\"type\":\"output_text\",\"text\":" + whole + ",\"annotations\":[]}";
    String head = "\"item_id\":\"" + messageId + "\",\"output_index\":0,\"content_index\":0,";
    event(out, "response.output_text.done", head + "\"text\":" + whole + ",\"logprobs\":[]");
    event(out, "response.content_part.done", head + "\"part\":" + part);
    String item = message("completed", "[" + part + "]");
    event(out, "response.output_item.done", "\"output_index\":0,\"item\":" + item);
    event(out, cut ? "response.incomplete" : "response.completed",
        "\"response\":" + response(cut ? "incomplete" : "completed", "[" + item + "]", usage(promptTokens, completionTokens),
            cut ? "{\"reason\":\"max_output_tokens\"}" : null));
  }

  @Override
  public void writeError(ByteBuf out) {
    event(out, "response.failed", "\"response\":" + response("failed", "[]", "null", null).replace(
        "\"error\":null", "\"error\":{\"code\":\"server_error\",\"message\":\"Simulated engine failure (tokenmeter fault injection)\"}"));
  }

  @Override
  public void writeMalformed(ByteBuf out) {
    out.writeBytes(deltaHead);
    out.writeCharSequence("\n\n", UTF_8);
  }

  @Override
  public byte[] body(String whole, String finishReason, int promptTokens, int completionTokens) {
    if (toolCalls != null) {
      boolean cut = "length".equals(finishReason);
      List<String> arguments = toolCalls.split(whole);
      StringBuilder items = new StringBuilder();
      for (int i = 0; i < arguments.size(); i++) {
        String q = Bodies.quote(arguments.get(i));
        boolean complete = arguments.get(i).length() == toolCalls.call(i).arguments().length();
        items.append(i == 0 ? "" : ",").append(call(i, complete ? "completed" : "incomplete", q.substring(1, q.length() - 1)));
      }
      return response(cut ? "incomplete" : "completed", "[" + items + "]", usage(promptTokens, completionTokens),
          cut ? "{\"reason\":\"max_output_tokens\"}" : null).getBytes(UTF_8);
    }
    String part = "{\"type\":\"output_text\",\"text\":" + Bodies.quote(whole) + ",\"annotations\":[]}";
    boolean cut = "length".equals(finishReason);
    return response(cut ? "incomplete" : "completed", "[" + message("completed", "[" + part + "]") + "]",
            usage(promptTokens, completionTokens), cut ? "{\"reason\":\"max_output_tokens\"}" : null)
        .getBytes(UTF_8);
  }

  private void event(ByteBuf out, String type, String fields) {
    out.writeCharSequence("event: " + type + "\ndata: {\"type\":\"" + type + "\"," + fields + ",\"sequence_number\":"
        + sequence++ + "}\n\n", UTF_8);
  }

  private String response(String status, String output, String usage, String incomplete) {
    return "{\"id\":\"" + id + "\",\"object\":\"response\",\"created_at\":" + createdSeconds + ",\"status\":\"" + status
        + "\",\"error\":null,\"incomplete_details\":" + (incomplete == null ? "null" : incomplete)
        + ",\"instructions\":null,\"model\":" + quotedModel + ",\"output\":" + output
        + ",\"parallel_tool_calls\":true,\"tool_choice\":\"auto\",\"tools\":[],\"usage\":" + usage + "}";
  }

  private String message(String status, String content) {
    return "{\"id\":\"" + messageId + "\",\"type\":\"message\",\"status\":\"" + status
        + "\",\"role\":\"assistant\",\"content\":" + content + "}";
  }

  @Override
  public void cachedPromptTokens(int tokens) {
    cachedTokens = tokens;
  }

  /** {@code input_tokens} includes the cached part, {@code input_tokens_details.cached_tokens}. */
  private String usage(int promptTokens, int completionTokens) {
    return "{\"input_tokens\":" + promptTokens + ",\"input_tokens_details\":{\"cached_tokens\":" + cachedTokens
        + "},\"output_tokens\":"
        + completionTokens + ",\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":"
        + (promptTokens + completionTokens) + "}";
  }
}
