package dev.tokenmeter.simulator;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;

/**
 * TGI's native {@code /generate_stream}, as documented by its OpenAPI schema
 * (huggingface.co/docs/text-generation-inference, {@code StreamResponse}): {@code data:} without a
 * space (TGI's axum writer), one event per token, the last carrying {@code generated_text} and
 * {@code details} ({@code finish_reason} {@code eos_token} or {@code length}, {@code
 * generated_tokens}, {@code input_length}); no terminator. The EOS token is the special token
 * {@code </s>}. Token ids are the token's position (the simulator has no vocabulary ids). The
 * injected error is TGI's {@code {"error":…,"error_type":"generation"}}.
 */
final class TgiFrames implements WireFrames {
  private static final byte[] ERROR =
      "data:{\"error\":\"Request failed during generation: Simulated engine failure (tokenmeter fault injection)\",\"error_type\":\"generation\"}\n\n"
          .getBytes(UTF_8);
  private final int promptTokens;
  private final ByteArrayOutputStream text = new ByteArrayOutputStream(256); // escaped
  private int index;

  TgiFrames(int promptTokens) {
    this.promptTokens = promptTokens;
  }

  @Override
  public void writeToken(ByteBuf out, byte[] tokenJson, String finishReason) {
    index++;
    boolean eos = tokenJson.length == 0;
    text.writeBytes(tokenJson);
    out.writeCharSequence("data:{\"index\":" + index + ",\"token\":{\"id\":" + index + ",\"text\":\"", UTF_8);
    if (eos) {
      out.writeCharSequence("</s>", UTF_8);
    } else {
      out.writeBytes(tokenJson);
    }
    out.writeCharSequence("\",\"logprob\":-0.25,\"special\":" + eos + "},\"generated_text\":", UTF_8);
    if (finishReason == null) {
      out.writeCharSequence("null,\"details\":null}\n\n", UTF_8);
    } else {
      out.writeCharSequence("\"" + text.toString(UTF_8) + "\",\"details\":" + details(finishReason, index) + "}\n\n", UTF_8);
    }
  }

  @Override
  public int tokenChunkBound(byte[] tokenJson) {
    return tokenJson.length + text.size() + 256;
  }

  @Override
  public void writeError(ByteBuf out) {
    out.writeBytes(ERROR);
  }

  @Override
  public void writeMalformed(ByteBuf out) {
    out.writeCharSequence("data:{\"index\":" + index + ",\"token\":{\"id\":0,\"text\":\"\n\n", UTF_8);
  }

  @Override
  public byte[] body(String whole, String finishReason, int promptTokens, int completionTokens) {
    return ("{\"generated_text\":" + Bodies.quote(whole) + ",\"details\":" + details(finishReason, completionTokens) + "}")
        .getBytes(UTF_8);
  }

  private String details(String finishReason, int generated) {
    return "{\"finish_reason\":\"" + ("length".equals(finishReason) ? "length" : "eos_token") + "\",\"generated_tokens\":"
        + generated + ",\"seed\":null,\"input_length\":" + promptTokens + "}";
  }
}
