package dev.tokenmeter.simulator;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * Gemini's {@code streamGenerateContent?alt=sse}, as documented at ai.google.dev/api/generate-content:
 * one {@code GenerateContentResponse} per token with the token as the candidate's only text part
 * and the cumulative {@code usageMetadata}; the last one carries {@code finishReason} ({@code STOP}
 * or {@code MAX_TOKENS}); no terminator event. Lines end with CRLF, as Google's servers send them.
 * The EOS token is an empty text part. The injected error is an {@code error} object ({@code
 * INTERNAL}).
 *
 * <p>A tool call ({@link ToolCalls}) is one {@code functionCall} part ({@code name}, {@code args})
 * sent whole in the last chunk, as Gemini's REST stream delivers function calls (not argument
 * pieces), with {@code finishReason} {@code STOP}; its argument tokens are counted in {@code
 * candidatesTokenCount} as they are generated, and nothing is sent before the call is complete.
 * Parallel calls are one {@code functionCall} part each, all in that last chunk.
 */
final class GeminiFrames implements WireFrames {
  private static final byte[] HEAD = ascii("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"");
  static final byte[] ERROR =
      ascii("data: {\"error\": {\"code\": 500, \"message\": \"Simulated engine failure (tokenmeter fault injection)\","
          + " \"status\": \"INTERNAL\"}}\r\n\r\n");

  private final String id;
  private final String quotedModel;
  private final int promptTokens;
  private int tokens;
  private int cachedTokens;
  private final ToolCalls.Reply toolCalls;

  GeminiFrames(String id, String quotedModel, int promptTokens, ToolCalls.Reply toolCalls) {
    this.toolCalls = toolCalls;
    this.id = id;
    this.quotedModel = quotedModel;
    this.promptTokens = promptTokens;
  }

  @Override
  public void writeToken(ByteBuf out, byte[] tokenJson, String finishReason) {
    tokens++;
    if (toolCalls != null) {
      if (finishReason != null) {
        out.writeCharSequence("data: {\"candidates\": [{\"content\": {\"parts\": [" + callParts(tokens)
            + "],\"role\": \"model\"}," + finish(finishReason) + "\"index\": 0}],\"usageMetadata\": " + usage(tokens)
            + ",\"modelVersion\": " + quotedModel + ",\"responseId\": \"" + id + "\"}\r\n\r\n", UTF_8);
      }
      return;
    }
    out.writeBytes(HEAD);
    out.writeBytes(tokenJson);
    out.writeCharSequence("\"}],\"role\": \"model\"}," + finish(finishReason) + "\"index\": 0}],\"usageMetadata\": "
        + usage(tokens) + ",\"modelVersion\": " + quotedModel + ",\"responseId\": \"" + id + "\"}\r\n\r\n", UTF_8);
  }

  @Override
  public int tokenChunkBound(byte[] tokenJson) {
    return HEAD.length + tokenJson.length + 256 + (toolCalls == null ? 0 : callsBound());
  }

  @Override
  public void writeError(ByteBuf out) {
    out.writeBytes(ERROR);
  }

  @Override
  public void writeMalformed(ByteBuf out) {
    out.writeBytes(HEAD);
    out.writeCharSequence("\r\n\r\n", UTF_8);
  }

  @Override
  public byte[] body(String text, String finishReason, int promptTokens, int completionTokens) {
    String part = toolCalls != null ? callParts(text) : "{\"text\": " + Bodies.quote(text) + "}";
    return ("{\"candidates\": [{\"content\": {\"parts\": [" + part + "],\"role\": \"model\"},"
            + finish(finishReason) + "\"index\": 0}],\"usageMetadata\": " + usage(completionTokens)
            + ",\"modelVersion\": " + quotedModel + ",\"responseId\": \"" + id + "\"}")
        .getBytes(UTF_8);
  }

  /**
   * One {@code functionCall} part per call the {@code written} tokens reached; the {@code args} of
   * one cut at max tokens {@code {}}.
   */
  private String callParts(int written) {
    StringBuilder b = new StringBuilder();
    int at = 0;
    for (ToolCalls.Call c : toolCalls.calls()) {
      if (at >= written) {
        break;
      }
      at += c.pieces().size();
      b.append(b.isEmpty() ? "" : ",").append("{\"functionCall\": {\"name\": ").append(Bodies.quote(c.name()))
          .append(",\"args\": ").append(at <= written ? c.arguments() : "{}").append("}}");
    }
    return b.toString();
  }

  /** The body's parts: one per call {@code text}, the arguments written, reached ({@link ToolCalls.Reply#split}). */
  private String callParts(String text) {
    List<String> arguments = toolCalls.split(text);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < arguments.size(); i++) {
      ToolCalls.Call c = toolCalls.call(i);
      b.append(i == 0 ? "" : ",").append("{\"functionCall\": {\"name\": ").append(Bodies.quote(c.name()))
          .append(",\"args\": ").append(arguments.get(i).length() == c.arguments().length() ? c.arguments() : "{}")
          .append("}}");
    }
    return b.toString();
  }

  private int callsBound() {
    int n = 0;
    for (ToolCalls.Call c : toolCalls.calls()) {
      n += 64 + 6 * (c.name().length() + c.arguments().length());
    }
    return n;
  }

  private static String finish(String finishReason) {
    return finishReason == null ? "" : "\"finishReason\": \"" + ("length".equals(finishReason) ? "MAX_TOKENS" : "STOP") + "\",";
  }

  @Override
  public void cachedPromptTokens(int tokens) {
    cachedTokens = tokens;
  }

  /**
   * The cumulative {@code usageMetadata}: {@code promptTokenCount} includes the cached part, which
   * is {@code cachedContentTokenCount} (Gemini sends it only when some was cached; so does this).
   */
  private String usage(int candidates) {
    return "{\"promptTokenCount\": " + promptTokens + ",\"candidatesTokenCount\": " + candidates
        + ",\"totalTokenCount\": " + (promptTokens + candidates)
        + (cachedTokens > 0 ? ",\"cachedContentTokenCount\": " + cachedTokens : "") + "}";
  }

  private static byte[] ascii(String s) {
    return s.getBytes(UTF_8);
  }
}
