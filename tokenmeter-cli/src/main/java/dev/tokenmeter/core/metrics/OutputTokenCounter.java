package dev.tokenmeter.core.metrics;

/**
 * Counts the tokens of generated text with the target model's tokenizer: the second source of a
 * request's output token count, used when the server sent no {@code usage}. Implementations must
 * be thread-safe or confined to the event loop that calls them.
 */
@FunctionalInterface
public interface OutputTokenCounter {

  /**
   * Tokens in {@code generatedText} (the answer text of one request); a negative value means "no
   * count" and the request falls back to its chunk count.
   */
  int count(CharSequence generatedText);

  /** The tokenizer's name for reports ({@code o200k_base}); "tokenizer" when it has none. */
  default String name() {
    return "tokenizer";
  }

  /** {@code count} under the name {@code name}. */
  static OutputTokenCounter named(String name, OutputTokenCounter count) {
    return new OutputTokenCounter() {
      @Override
      public int count(CharSequence generatedText) {
        return count.count(generatedText);
      }

      @Override
      public String name() {
        return name;
      }
    };
  }
}
