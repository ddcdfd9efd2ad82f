package dev.tokenmeter.simulator;

/**
 * What the timing model sees of one accepted generation request. Immutable.
 *
 * @param serverRequestId the server's sequence number for the request, from 1, in arrival order
 * @param api which endpoint the request came to
 * @param stream whether the response is streamed (SSE) or one JSON body
 * @param promptTokens the server's count of prompt tokens (see {@link PromptTokens}, {@link PromptCounter})
 * @param maxTokens the effective {@code max_tokens} (the request's, or the configured default)
 * @param outputTokens how many tokens the server will generate, EOS included when it stops
 *     naturally ({@code 1 ≤ outputTokens ≤ maxTokens})
 * @param arrivalNanos {@link dev.tokenmeter.core.time.Ticker} reading when the request's last
 *     byte was read
 * @param promptIds token ids of the prompt, or stand-ins (see {@link PromptTokens#chatIds}), the
 *     content identity a prefix cache keys on; null when unknown. Not copied: do not modify
 */
public record GenerationRequest(
    long serverRequestId,
    Api api,
    boolean stream,
    int promptTokens,
    int maxTokens,
    int outputTokens,
    long arrivalNanos,
    int[] promptIds) {

  /** A request whose prompt content is unknown (no prefix-cache hits). */
  public GenerationRequest(
      long serverRequestId,
      Api api,
      boolean stream,
      int promptTokens,
      int maxTokens,
      int outputTokens,
      long arrivalNanos) {
    this(serverRequestId, api, stream, promptTokens, maxTokens, outputTokens, arrivalNanos, null);
  }

  /** The generation endpoints the simulator serves. */
  public enum Api {
    /** {@code POST /v1/chat/completions}. */
    CHAT,
    /** {@code POST /v1/completions}. */
    COMPLETIONS,
    /** Anthropic's {@code POST /v1/messages}. */
    ANTHROPIC,
    /** OpenAI's {@code POST /v1/responses}. */
    RESPONSES,
    /** Gemini's {@code POST /v1beta/models/MODEL:streamGenerateContent} and {@code :generateContent}. */
    GEMINI,
    /** TGI's {@code POST /generate_stream} and {@code /generate}. */
    TGI,
    /** Ollama's {@code POST /api/chat}. */
    OLLAMA,
    /** Ollama's {@code POST /api/generate}. */
    OLLAMA_GENERATE
  }

  public GenerationRequest {
    if (outputTokens < 1 || outputTokens > maxTokens) {
      throw new IllegalArgumentException(
          "outputTokens " + outputTokens + " not in [1, " + maxTokens + "]");
    }
  }
}
