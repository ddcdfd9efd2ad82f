package dev.tokenmeter.client;

import dev.tokenmeter.core.request.StreamItem;

/**
 * Token counts as one API reported them, mapped to the contract's meaning; -1 for a count the API
 * did not send. Each decoder's {@code usage(JsonNode)} documents its API's fields.
 *
 * @param inputTokens every prompt token, cached or not (OpenAI's {@code prompt_tokens}; Anthropic
 *     reports cache reads and writes apart from {@code input_tokens}, and they are added here)
 * @param outputTokens every generated token, reasoning included (OpenAI's {@code
 *     completion_tokens})
 * @param reasoningTokens the reasoning part of {@code outputTokens}
 * @param cachedInputTokens the part of {@code inputTokens} read from the server's prompt cache
 */
record ApiUsage(int inputTokens, int outputTokens, int reasoningTokens, int cachedInputTokens) {

  /** The stream item, cached input tokens included. */
  StreamItem.Usage item() {
    return new StreamItem.Usage(inputTokens, outputTokens, reasoningTokens, cachedInputTokens);
  }
}
