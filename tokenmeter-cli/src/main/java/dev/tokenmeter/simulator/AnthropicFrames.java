package dev.tokenmeter.simulator;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * Anthropic's Messages stream, as documented at docs.anthropic.com/en/docs/build-with-claude/streaming:
 * {@code message_start} (input tokens), {@code content_block_start} of one text block and a {@code
 * ping}, one {@code content_block_delta} ({@code text_delta}) per token, then {@code
 * content_block_stop}, {@code message_delta} (stop reason {@code end_turn} or {@code max_tokens},
 * cumulative output tokens) and {@code message_stop}. Every event has its {@code event:} line.
 * The EOS token has no text and so no delta. The injected error is {@code event: error} with an
 * {@code overloaded_error}, which ends the stream.
 *
 * <p>A tool call ({@link ToolCalls}) is one {@code tool_use} block instead: {@code
 * content_block_start} with {@code id}, {@code name} and {@code "input":{}}, one {@code
 * input_json_delta} per token of the arguments ({@code partial_json}), and stop reason {@code
 * tool_use}, as documented at docs.anthropic.com/en/docs/build-with-claude/streaming ("Streaming
 * request with tool use"). Parallel calls are one {@code tool_use} block each, at content-block
 * index 0, 1, ...: the next block starts when the previous one's arguments are written (a {@code
 * content_block_stop}, then its {@code content_block_start}), as Anthropic streams several {@code
 * tool_use} blocks one after the other.
 */
final class AnthropicFrames implements WireFrames {
  private static final byte[] DELTA_HEAD =
      ascii("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"");
  private static final byte[] DELTA_TAIL = ascii("\"}}\n\n");
  private static final byte[] TOOL_DELTA_HEAD = toolDeltaHead(0);
  static final byte[] ERROR =
      ascii("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded"
          + " (tokenmeter fault injection)\"}}\n\n");

  private final String id;
  private final String quotedModel;
  private final int promptTokens;
  private int cachedTokens;
  private final ToolCalls.Reply toolCalls;
  private final int[] starts;
  /** Tokens written, the block they go to, and its delta head. */
  private int token;
  private int block;
  private byte[] toolDeltaHead = TOOL_DELTA_HEAD;

  AnthropicFrames(String id, String quotedModel, int promptTokens, ToolCalls.Reply toolCalls) {
    this.toolCalls = toolCalls;
    this.starts = toolCalls == null ? null : toolCalls.starts();
    this.id = id;
    this.quotedModel = quotedModel;
    this.promptTokens = promptTokens;
  }

  @Override
  public boolean hasOpening() {
    return true;
  }

  @Override
  public void writeOpening(ByteBuf out) {
    out.writeCharSequence(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"" + id
            + "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":" + quotedModel
            + ",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":" + usage(1) + "}}\n\n"
            + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
            + "\"content_block\":" + (toolCalls == null ? "{\"type\":\"text\",\"text\":\"\"}" : toolUse(0, "{}"))
            + "}\n\n"
            + "event: ping\ndata: {\"type\": \"ping\"}\n\n",
        UTF_8);
  }

  @Override
  public void writeToken(ByteBuf out, byte[] tokenJson, String finishReason) {
    if (toolCalls != null) {
      while (block + 1 < starts.length && token >= starts[block + 1]) {
        block++;
        toolDeltaHead = toolDeltaHead(block);
        out.writeCharSequence("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":" + (block - 1)
            + "}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":" + block
            + ",\"content_block\":" + toolUse(block, "{}") + "}\n\n", UTF_8);
      }
      token++;
    }
    if (tokenJson.length > 0) {
      out.writeBytes(toolCalls == null ? DELTA_HEAD : toolDeltaHead);
      out.writeBytes(tokenJson);
      out.writeBytes(DELTA_TAIL);
    }
  }

  @Override
  public int tokenChunkBound(byte[] tokenJson) {
    return TOOL_DELTA_HEAD.length + tokenJson.length + DELTA_TAIL.length + (toolCalls == null ? 0 : 512 + 6 * maxNameLength());
  }

  @Override
  public void writeClosing(ByteBuf out, String finishReason, int promptTokens, int completionTokens, boolean includeUsage) {
    out.writeCharSequence(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":" + block + "}\n\n"
            + "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" + stopReason(finishReason)
            + "\",\"stop_sequence\":null},\"usage\":" + usage(completionTokens) + "}\n\n"
            + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        UTF_8);
  }

  @Override
  public void writeError(ByteBuf out) {
    out.writeBytes(ERROR);
  }

  @Override
  public void writeMalformed(ByteBuf out) {
    out.writeBytes(DELTA_HEAD);
    out.writeBytes(ascii("\n\n"));
  }

  @Override
  public byte[] body(String text, String finishReason, int promptTokens, int completionTokens) {
    return ("{\"id\":\"" + id + "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":" + quotedModel
            + ",\"content\":[" + block(text, finishReason) + "],\"stop_reason\":\""
            + stopReason(finishReason) + "\",\"stop_sequence\":null,\"usage\":" + usage(completionTokens) + "}")
        .getBytes(UTF_8);
  }

  @Override
  public void cachedPromptTokens(int tokens) {
    cachedTokens = tokens;
  }

  /**
   * Anthropic's usage: {@code input_tokens} excludes the prompt read from the cache, which is
   * {@code cache_read_input_tokens} (the three input counts add up to the prompt); nothing is
   * written to a cache on request ({@code cache_creation_input_tokens} 0: the simulator's cache is
   * automatic, as vLLM's, not Anthropic's explicit {@code cache_control}).
   */
  private String usage(int outputTokens) {
    return "{\"input_tokens\":" + (promptTokens - cachedTokens) + ",\"cache_creation_input_tokens\":0,"
        + "\"cache_read_input_tokens\":" + cachedTokens + ",\"output_tokens\":" + outputTokens + "}";
  }

  /**
   * The body's content blocks: the text, or one {@code tool_use} block per call the text reached
   * (the input of the one cut at max_tokens {@code {}}).
   */
  private String block(String text, String finishReason) {
    if (toolCalls == null) {
      return "{\"type\":\"text\",\"text\":" + Bodies.quote(text) + "}";
    }
    List<String> arguments = toolCalls.split(text);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < arguments.size(); i++) {
      boolean cut = arguments.get(i).length() < toolCalls.call(i).arguments().length();
      b.append(i == 0 ? "" : ",").append(toolUse(i, cut ? "{}" : arguments.get(i)));
    }
    return b.toString();
  }

  /** Call {@code i}'s {@code tool_use} block with {@code input}. */
  private String toolUse(int i, String input) {
    return "{\"type\":\"tool_use\",\"id\":\"" + toolCalls.id(i) + "\",\"name\":" + Bodies.quote(toolCalls.call(i).name())
        + ",\"input\":" + input + "}";
  }

  private int maxNameLength() {
    int n = 0;
    for (ToolCalls.Call c : toolCalls.calls()) {
      n = Math.max(n, c.name().length());
    }
    return n;
  }

  private static byte[] toolDeltaHead(int index) {
    return ascii("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":" + index
        + ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"");
  }

  private static String stopReason(String finishReason) {
    return finishReason == null ? "end_turn" : switch (finishReason) {
      case "length" -> "max_tokens";
      case "tool_calls" -> "tool_use";
      default -> "end_turn";
    };
  }

  static byte[] ascii(String s) {
    return s.getBytes(UTF_8);
  }
}
