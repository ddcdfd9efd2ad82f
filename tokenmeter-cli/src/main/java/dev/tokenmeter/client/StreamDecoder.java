package dev.tokenmeter.client;

import dev.tokenmeter.core.request.StreamItem;
import java.util.function.Consumer;

/**
 * Turns one API's wire payloads into {@link StreamItem}s, so the measurement contract reads every
 * API alike: answer text is {@code Text(CONTENT)} (it starts TTFT), thinking is {@code
 * Text(REASONING)}, tool input is {@code Text(TOOL_CALL)}, the API's stop reason is a {@code
 * Finish} with OpenAI's names where one exists ({@code stop}, {@code length}, {@code tool_calls},
 * {@code content_filter}), its token counts a {@code Usage}, its in-stream error an {@code
 * ErrorEvent} and its end-of-stream event {@code Done}. docs/METRICS.md, "APIs", has the table of
 * which wire event gives which item.
 *
 * <p>One decoder per response stream: some APIs spread one fact over several events (Anthropic
 * sends input tokens in {@code message_start}, output tokens in {@code message_delta}), so a
 * decoder may keep state across events. Not thread-safe; called on the stream's event loop.
 * Items of one payload are delivered only after the whole payload parsed: a malformed payload
 * yields no item, only a {@link ProtocolException}, whose message names the API the payload looks
 * like when it is another one ("this endpoint answered like an OpenAI server; try --api chat").
 */
public sealed interface StreamDecoder
    permits OpenAiDecoder, AnthropicDecoder, ResponsesDecoder, GeminiDecoder, TgiDecoder, OllamaDecoder {

  /**
   * One streamed payload: an SSE event's data, or one line of a newline-delimited JSON stream.
   *
   * @param eventType the SSE {@code event:} field ({@code "message"} when absent); null for a line
   * @throws ProtocolException when the payload is not what the API sends
   */
  void event(String eventType, byte[] data, int offset, int length, Consumer<StreamItem> out);

  /**
   * A whole non-streamed response body (or an error body): the items a stream would give, without
   * {@code Done} (the caller knows the body is complete).
   *
   * @throws ProtocolException when the body is not what the API sends
   */
  void body(byte[] data, int offset, int length, Consumer<StreamItem> out);

  /**
   * A decoder for one stream of {@code api}. The OpenAI-compatible APIs share {@code openAi}
   * (it holds no per-stream state); the others get a fresh decoder.
   */
  static StreamDecoder of(Api api, ChunkParser openAi) {
    return switch (api) {
      case CHAT, COMPLETIONS -> new OpenAiDecoder(openAi);
      case ANTHROPIC -> new AnthropicDecoder();
      case RESPONSES -> new ResponsesDecoder();
      case GEMINI -> new GeminiDecoder();
      case TGI -> new TgiDecoder();
      case OLLAMA, OLLAMA_GENERATE -> new OllamaDecoder();
    };
  }
}
