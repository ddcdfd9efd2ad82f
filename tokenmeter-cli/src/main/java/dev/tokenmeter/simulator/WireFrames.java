package dev.tokenmeter.simulator;

import io.netty.buffer.ByteBuf;

/**
 * The bytes one response is written in, per API: the opening frames, one frame per token, the
 * closing frames (finish reason, usage, end of stream), the in-stream error of fault injection,
 * and the whole body of a non-streamed response. {@link Generation} decides when each is written;
 * the frames only decide how. One per response; not thread-safe.
 *
 * <p>Implementations: {@link OpenAiFrames} (chat and completions, vLLM's format), {@link
 * AnthropicFrames}, {@link ResponsesFrames}, {@link GeminiFrames}, {@link TgiFrames}, {@link
 * OllamaFrames}. Each class documents the provider's format it follows and where that is
 * documented.
 */
interface WireFrames {

  /** The {@code Content-Type} of a streamed response. */
  default String contentType() {
    return "text/event-stream; charset=utf-8";
  }

  /** Frames sent before the first token (a role chunk, a message start); none by default. */
  default void writeOpening(ByteBuf out) {}

  /** True when {@link #writeOpening} writes something. */
  default boolean hasOpening() {
    return false;
  }

  /**
   * Token {@code index}'s frame; {@code tokenJson} is the escaped JSON string body, empty for the
   * EOS token; {@code finishReason} ("stop" or "length") on the last token only.
   */
  void writeToken(ByteBuf out, byte[] tokenJson, String finishReason);

  /** Bytes {@link #writeToken} needs at most for {@code tokenJson}, for buffer sizing. */
  int tokenChunkBound(byte[] tokenJson);

  /**
   * The frames after the last token: finish reason (where the API does not put it on the last
   * token), usage, end of stream. {@code includeUsage} is OpenAI's {@code stream_options}; the
   * other APIs always send usage. None by default: for the APIs (Gemini, TGI) whose last token's
   * frame carries the finish reason and the usage, and whose stream just ends.
   */
  default void writeClosing(
      ByteBuf out, String finishReason, int promptTokens, int completionTokens, boolean includeUsage) {}

  /**
   * The prompt tokens the prefix cache served, told once when token 0 is due (before the opening
   * frames, unless they went with the headers): every usage written afterwards reports them in the
   * API's own field. No-op for the APIs that report none (TGI, Ollama).
   */
  default void cachedPromptTokens(int tokens) {}

  /** The injected in-stream error and whatever ends the stream after it. */
  void writeError(ByteBuf out);

  /** A malformed frame (injected): cut inside a JSON string. */
  void writeMalformed(ByteBuf out);

  /** The whole body of a non-streamed response. */
  byte[] body(String text, String finishReason, int promptTokens, int completionTokens);

  /**
   * The frames of one response.
   *
   * @param id the response id
   * @param model the served model name; {@code quotedModel} the same as a JSON string literal
   * @param promptTokens the prompt's token count (Anthropic and Gemini report it from the start)
   */
  static WireFrames of(
      GenerationRequest.Api api, String id, long createdSeconds, String model, String quotedModel, int promptTokens) {
    return of(api, id, createdSeconds, model, quotedModel, promptTokens, null);
  }

  /**
   * From now on the text is a refusal (OpenAI chat's {@code refusal} field); only chat frames can
   * carry one ({@link Scripted#servableOn}).
   */
  default void refusal() {
    throw new UnsupportedOperationException("a refusal is an OpenAI chat field");
  }

  /**
   * The frames of one response that may be tool calls ({@code toolCalls} non-null: chat,
   * Anthropic, Gemini and Responses; the other APIs answer in text): each token is then a piece of
   * a call's arguments, call after call.
   */
  static WireFrames of(GenerationRequest.Api api, String id, long createdSeconds, String model, String quotedModel,
      int promptTokens, ToolCalls.Reply toolCalls) {
    return switch (api) {
      case CHAT, COMPLETIONS -> new OpenAiFrames(api, id, createdSeconds, model, quotedModel, toolCalls);
      case ANTHROPIC -> new AnthropicFrames(id, quotedModel, promptTokens, toolCalls);
      case RESPONSES -> new ResponsesFrames(id, createdSeconds, quotedModel, toolCalls);
      case GEMINI -> new GeminiFrames(id, quotedModel, promptTokens, toolCalls);
      case TGI -> new TgiFrames(promptTokens);
      case OLLAMA, OLLAMA_GENERATE -> new OllamaFrames(api == GenerationRequest.Api.OLLAMA, quotedModel, createdSeconds);
    };
  }
}
