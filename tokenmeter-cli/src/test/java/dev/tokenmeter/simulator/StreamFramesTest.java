package dev.tokenmeter.simulator;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * The simulator's stream, byte for byte: the expected text below was taken from the frames as they
 * were written by hand, before they were built on {@link dev.tokenmeter.sse.SseWriter}; the bytes
 * must not change (clients and golden transcripts compare them with vLLM's).
 */
class StreamFramesTest {
  private static final String ID = "chatcmpl-0123456789abcdef0123456789abcdef";
  private static final String CHAT_HEAD =
      "data: {\"id\":\"" + ID + "\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\",\"choices\":[";
  private static final String CMPL_HEAD =
      "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\",\"choices\":[";

  private static String written(java.util.function.Consumer<ByteBuf> write) {
    ByteBuf out = Unpooled.buffer();
    try {
      write.accept(out);
      return out.toString(UTF_8);
    } finally {
      out.release();
    }
  }

  @Test
  void chatFramesAreVllmsBytes() {
    StreamFrames f = new StreamFrames(GenerationRequest.Api.CHAT, ID, 1_700_000_000L, "\"m\"");
    String stream = written(out -> {
      f.writeRoleChunk(out);
      f.writeToken(out, " the".getBytes(UTF_8), null);
      f.writeToken(out, " \\\"é\\n".getBytes(UTF_8), null);
      f.writeToken(out, new byte[0], "stop");
      f.writeUsage(out, 10, 3, 8);
      out.writeBytes(StreamFrames.DONE);
    });
    assertThat(stream).isEqualTo(
        CHAT_HEAD + "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
            + CHAT_HEAD + "{\"index\":0,\"delta\":{\"content\":\" the\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
            + CHAT_HEAD + "{\"index\":0,\"delta\":{\"content\":\" \\\"é\\n\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
            + CHAT_HEAD + "{\"index\":0,\"delta\":{\"content\":\"\"},\"logprobs\":null,\"finish_reason\":\"stop\",\"stop_reason\":null}]}\n\n"
            + CHAT_HEAD + "],\"usage\":{\"prompt_tokens\":10,\"total_tokens\":13,\"completion_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":8}}}\n\n"
            + "data: [DONE]\n\n");
  }

  @Test
  void completionFramesAreVllmsBytes() {
    StreamFrames f = new StreamFrames(GenerationRequest.Api.COMPLETIONS, "cmpl-1", 1_700_000_000L, "\"m\"");
    String stream = written(out -> {
      f.writeToken(out, " a".getBytes(UTF_8), null);
      f.writeToken(out, " b".getBytes(UTF_8), "length");
      f.writeUsage(out, 3, 2, 0);
    });
    assertThat(stream).isEqualTo(
        CMPL_HEAD + "{\"index\":0,\"text\":\" a\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}],\"usage\":null}\n\n"
            + CMPL_HEAD + "{\"index\":0,\"text\":\" b\",\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}],\"usage\":null}\n\n"
            + CMPL_HEAD + "],\"usage\":{\"prompt_tokens\":3,\"total_tokens\":5,\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\n");
  }

  @Test
  void faultFramesAreTheirOwnBytes() {
    StreamFrames f = new StreamFrames(GenerationRequest.Api.CHAT, ID, 1_700_000_000L, "\"m\"");
    assertThat(written(f::writeMalformed)).isEqualTo(CHAT_HEAD + "{\"index\":0,\"delta\":{\"content\":\"\n\n");
    assertThat(new String(StreamFrames.ERROR_EVENT, UTF_8)).isEqualTo(
        "data: {\"error\": {\"message\": \"Simulated engine failure (tokenmeter fault injection)\","
            + " \"type\": \"InternalServerError\", \"param\": null, \"code\": 500}}\n\n");
  }

  @Test
  void aTokenChunkFitsItsBound() {
    StreamFrames f = new StreamFrames(GenerationRequest.Api.COMPLETIONS, "cmpl-1", 1_700_000_000L, "\"m\"");
    byte[] token = " word".getBytes(UTF_8);
    assertThat(written(out -> f.writeToken(out, token, "length")).getBytes(UTF_8).length)
        .isLessThanOrEqualTo(f.tokenChunkBound(token));
  }
}
