package dev.tokenmeter.core.request;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * What one request sends: the prompt and the output length asked for. Immutable.
 *
 * @param id unique within a run, in the order requests were planned
 * @param prompt the prompt
 * @param promptTokens the client's count of prompt tokens, or -1 when unknown
 * @param promptTokensExact whether {@code promptTokens} was counted with the target's tokenizer
 *     (true) or estimated (false)
 * @param maxTokens the {@code max_tokens} to send, empty to let the server decide
 * @param turn the request's session and turn when it is part of a conversation, else null
 */
public record RequestSpec(
    long id,
    Prompt prompt,
    int promptTokens,
    boolean promptTokensExact,
    OptionalInt maxTokens,
    SessionTurn turn) {
  public RequestSpec {
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(maxTokens, "maxTokens");
  }

  /** A request outside any conversation. */
  public RequestSpec(
      long id, Prompt prompt, int promptTokens, boolean promptTokensExact, OptionalInt maxTokens) {
    this(id, prompt, promptTokens, promptTokensExact, maxTokens, null);
  }
}
