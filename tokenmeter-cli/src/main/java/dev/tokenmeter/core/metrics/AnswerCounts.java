package dev.tokenmeter.core.metrics;

/**
 * What the client counts in one request's answer text: the work that runs off the event loop when
 * a request ends (see {@code StageRunner}).
 *
 * @param tokenizerTokens the tokenizer's count of the answer, -1 when not counted (no tokenizer,
 *     reasoning text the client does not keep, or the tokenizer failed)
 * @param words {@link Words#count} of the answer
 */
public record AnswerCounts(int tokenizerTokens, long words) {

  /**
   * Counts {@code answer}. Thread-safe when {@code counterOrNull} is.
   *
   * @param counterOrNull the tokenizer; null counts words only
   */
  public static AnswerCounts of(CharSequence answer, OutputTokenCounter counterOrNull) {
    int tokens = counterOrNull == null ? -1 : Math.max(-1, counterOrNull.count(answer));
    return new AnswerCounts(tokens, Words.count(answer));
  }
}
