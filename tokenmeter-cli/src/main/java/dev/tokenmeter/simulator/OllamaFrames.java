package dev.tokenmeter.simulator;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import java.time.Instant;

/**
 * Ollama's native {@code /api/chat} and {@code /api/generate}, as documented in
 * github.com/ollama/ollama docs/api.md: {@code application/x-ndjson}, one object per line per
 * token ({@code message.content} or {@code response}, {@code "done":false}), then a last line with
 * {@code "done":true}, {@code done_reason} ({@code stop} or {@code length}), {@code
 * prompt_eval_count} and {@code eval_count}. Ollama's own durations are left out: the simulator
 * does not model load or prompt evaluation apart. The EOS token has no text and so no line. The
 * injected error is Ollama's {@code {"error":…}} line.
 */
final class OllamaFrames implements WireFrames {
  private static final byte[] ERROR =
      "{\"error\":\"an error was encountered while running the model: Simulated engine failure (tokenmeter fault injection)\"}\n"
          .getBytes(UTF_8);
  private final boolean chat;
  private final byte[] head;
  private final byte[] tail;
  private final String start;

  OllamaFrames(boolean chat, String quotedModel, long createdSeconds) {
    this.chat = chat;
    this.start = "{\"model\":" + quotedModel + ",\"created_at\":\"" + Instant.ofEpochSecond(createdSeconds) + "\",";
    this.head = (start + (chat ? "\"message\":{\"role\":\"assistant\",\"content\":\"" : "\"response\":\"")).getBytes(UTF_8);
    this.tail = ((chat ? "\"}" : "\"") + ",\"done\":false}\n").getBytes(UTF_8);
  }

  @Override
  public String contentType() {
    return "application/x-ndjson";
  }

  @Override
  public void writeToken(ByteBuf out, byte[] tokenJson, String finishReason) {
    if (tokenJson.length > 0) {
      out.writeBytes(head);
      out.writeBytes(tokenJson);
      out.writeBytes(tail);
    }
  }

  @Override
  public int tokenChunkBound(byte[] tokenJson) {
    return head.length + tokenJson.length + tail.length;
  }

  @Override
  public void writeClosing(ByteBuf out, String finishReason, int promptTokens, int completionTokens, boolean includeUsage) {
    out.writeCharSequence(last("\"\"", finishReason, promptTokens, completionTokens) + "\n", UTF_8);
  }

  @Override
  public void writeError(ByteBuf out) {
    out.writeBytes(ERROR);
  }

  @Override
  public void writeMalformed(ByteBuf out) {
    out.writeBytes(head);
    out.writeCharSequence("\n", UTF_8);
  }

  @Override
  public byte[] body(String text, String finishReason, int promptTokens, int completionTokens) {
    return last(Bodies.quote(text), finishReason, promptTokens, completionTokens).getBytes(UTF_8);
  }

  private String last(String quotedText, String finishReason, int promptTokens, int completionTokens) {
    return start + (chat ? "\"message\":{\"role\":\"assistant\",\"content\":" + quotedText + "}" : "\"response\":" + quotedText)
        + ",\"done\":true,\"done_reason\":\"" + ("length".equals(finishReason) ? "length" : "stop")
        + "\",\"prompt_eval_count\":" + promptTokens + ",\"eval_count\":" + completionTokens + "}";
  }
}
