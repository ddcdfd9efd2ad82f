package dev.tokenmeter.simulator;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tokenmeter.sse.SseWriter;
import io.netty.buffer.ByteBuf;

/**
 * The SSE bytes of one streamed response, in vLLM's wire format, pre-encoded when the request is
 * accepted so that a token costs three buffer copies and no JSON serialization. The SSE framing is
 * {@link SseWriter}'s ({@code dataStart}/{@code dataEnd} around a token, {@code data} for whole
 * events): the project's one SSE writer. Not thread-safe
 * (used on one event loop).
 *
 * <p>Chat chunk of token {@code t} (one line, then a blank line):
 *
 * <pre>
 * data: {"id":"chatcmpl-…","object":"chat.completion.chunk","created":1700000000,"model":"m",
 *        "choices":[{"index":0,"delta":{"content":" the"},"logprobs":null,"finish_reason":null}]}
 * </pre>
 *
 * The last token's chunk carries the finish reason and vLLM's {@code "stop_reason":null}: vLLM
 * puts {@code finish_reason} on the chunk of the engine step that finished, which carries the last
 * token (an empty {@code "content":""} when that token is EOS), and sends no separate empty-delta
 * chunk as OpenAI does. Completions chunks are {@code text_completion} objects with {@code
 * choices[0].text}, {@code "stop_reason":null} on every chunk and {@code "usage":null} (vLLM
 * serializes them with {@code exclude_unset=False}). Field order and the absence of spaces follow
 * pydantic's {@code model_dump_json}. The in-stream error event follows vLLM's {@code
 * create_streaming_error_response}, which uses Python's {@code json.dumps} (with spaces).
 */
final class StreamFrames {

  static final byte[] DONE = SseWriter.data("[DONE]");
  static final byte[] ERROR_EVENT =
      SseWriter.data(
          "{\"error\": {\"message\": \"Simulated engine failure (tokenmeter fault"
              + " injection)\", \"type\": \"InternalServerError\", \"param\": null, \"code\":"
              + " 500}}");

  private static final byte[] CHAT_MID = SseWriter.dataEnd(utf8("\"},\"logprobs\":null,\"finish_reason\":null}]}"));
  private static final byte[] COMPLETION_MID =
      SseWriter.dataEnd(utf8("\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}],\"usage\":null}"));
  /** Ends an event inside a JSON string: the malformed-event fault. */
  private static final byte[] CUT = SseWriter.dataEnd(new byte[0]);

  private final GenerationRequest.Api api;
  private final String head;
  private byte[] tokenPrefix;
  private final byte[] roleChunk;

  /**
   * @param api chat or completions
   * @param id the response id ({@code chatcmpl-…} or {@code cmpl-…})
   * @param createdSeconds epoch seconds
   * @param quotedModel the model name as a JSON string literal, quotes included
   */
  StreamFrames(GenerationRequest.Api api, String id, long createdSeconds, String quotedModel) {
    this.api = api;
    String object = api == GenerationRequest.Api.CHAT ? "chat.completion.chunk" : "text_completion";
    this.head =
        "{\"id\":\"" + id + "\",\"object\":\"" + object + "\",\"created\":" + createdSeconds
            + ",\"model\":" + quotedModel + ",\"choices\":[";
    this.tokenPrefix =
        SseWriter.dataStart(
            utf8(head
                + (api == GenerationRequest.Api.CHAT
                    ? "{\"index\":0,\"delta\":{\"content\":\""
                    : "{\"index\":0,\"text\":\"")));
    this.roleChunk =
        SseWriter.data(
            head
                + "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                + "\"logprobs\":null,\"finish_reason\":null}]}");
  }

  /** Chat only: from now on tokens go in {@code delta.refusal} instead of {@code delta.content}. */
  void refusal() {
    tokenPrefix = SseWriter.dataStart(utf8(head + "{\"index\":0,\"delta\":{\"refusal\":\""));
  }

  /** Chat only: the first chunk, {@code delta: {"role":"assistant","content":""}}. */
  void writeRoleChunk(ByteBuf out) {
    out.writeBytes(roleChunk);
  }

  /**
   * One token's chunk; {@code tokenJson} is the escaped JSON string body (empty for EOS), {@code
   * finishReason} null except on the last token.
   */
  void writeToken(ByteBuf out, byte[] tokenJson, String finishReason) {
    out.writeBytes(tokenPrefix);
    out.writeBytes(tokenJson);
    if (finishReason == null) {
      out.writeBytes(api == GenerationRequest.Api.CHAT ? CHAT_MID : COMPLETION_MID);
    } else {
      String tail =
          api == GenerationRequest.Api.CHAT
              ? "\"},\"logprobs\":null,\"finish_reason\":\"" + finishReason
                  + "\",\"stop_reason\":null}]}"
              : "\",\"logprobs\":null,\"finish_reason\":\"" + finishReason
                  + "\",\"stop_reason\":null}],\"usage\":null}";
      out.writeBytes(SseWriter.dataEnd(utf8(tail))); // once per response
    }
  }

  /**
   * The usage chunk sent after the last token when {@code stream_options.include_usage}: {@code
   * "choices":[]}, and usage fields in vLLM's {@code UsageInfo} order, with {@code
   * prompt_tokens_details.cached_tokens} as vLLM sends it under {@code
   * --enable-prompt-tokens-details} (and OpenAI always).
   */
  void writeUsage(ByteBuf out, int promptTokens, int completionTokens, int cachedTokens) {
    String usage =
        head + "],\"usage\":{\"prompt_tokens\":" + promptTokens + ",\"total_tokens\":"
            + (promptTokens + completionTokens) + ",\"completion_tokens\":" + completionTokens
            + ",\"prompt_tokens_details\":{\"cached_tokens\":" + cachedTokens + "}}}";
    out.writeBytes(SseWriter.data(usage));
  }

  /**
   * Chat only: the first chunk of tool call {@code index} (0, 1, ... in the answer), naming it with
   * empty arguments (OpenAI's format: {@code delta.tool_calls[0]} with {@code index}, {@code id},
   * {@code type}, {@code function.name} and {@code function.arguments ""}).
   */
  void writeToolHeader(ByteBuf out, int index, String callId, String name) {
    out.writeBytes(SseWriter.data(head + "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":" + index + ",\"id\":\"" + callId
        + "\",\"type\":\"function\",\"function\":{\"name\":" + Bodies.quote(name)
        + ",\"arguments\":\"\"}}]},\"logprobs\":null,\"finish_reason\":null}]}"));
  }

  /**
   * Chat only: one token of the arguments of tool call {@code index}, {@code pieceJson} escaped for
   * a JSON string; {@code finishReason} on the last one ("tool_calls", or "length" when cut).
   */
  void writeToolArguments(ByteBuf out, int index, byte[] pieceJson, String finishReason) {
    out.writeBytes(SseWriter.dataStart(utf8(head + "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":" + index + ","
        + "\"function\":{\"arguments\":\"")));
    out.writeBytes(pieceJson);
    out.writeBytes(SseWriter.dataEnd(utf8("\"}}]},\"logprobs\":null,\"finish_reason\":"
        + (finishReason == null ? "null}]}" : "\"" + finishReason + "\",\"stop_reason\":null}]}"))));
  }

  /** A malformed event: the start of a token chunk cut inside a string, so not valid JSON. */
  void writeMalformed(ByteBuf out) {
    out.writeBytes(tokenPrefix);
    out.writeBytes(CUT);
  }

  /** Bytes a token chunk needs at most, for buffer sizing. */
  int tokenChunkBound(byte[] tokenJson) {
    return tokenPrefix.length + tokenJson.length + 96;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(UTF_8);
  }
}
