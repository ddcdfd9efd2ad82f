package dev.tokenmeter.workload;

import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.tokenizer.Tokenizer;
import java.util.Objects;

/**
 * Counts the tokens of a text, exactly (a real tokenizer for the target model) or by estimate. The
 * workload uses it to size synthetic prompts and to fill {@code RequestSpec.promptTokens}; {@link
 * #exact()} becomes {@code RequestSpec.promptTokensExact}. Implementations must be thread-safe and
 * should be monotone (appending text never lowers the count).
 *
 * <p>{@link #exact(Tokenizer)} counts with the target's tokenizer; {@link #heuristic()} estimates
 * when there is none.
 */
@FunctionalInterface
public interface TokenEstimator {

  /** Tokens in {@code text}, with no special tokens or chat template around it. */
  int count(CharSequence text);

  /** Whether {@link #count} is the target's own tokenizer (true) or an estimate (false). */
  default boolean exact() {
    return false;
  }

  /**
   * Tokens of a prompt's text: a text prompt's {@link #count}; for a chat, the sum over message
   * contents (the role markers and template a server adds, about 4 tokens a message for OpenAI chat
   * models, are not counted).
   */
  default int countPrompt(Prompt prompt) {
    return switch (prompt) {
      case Prompt.Text t -> count(t.text());
      case Prompt.Infill f -> count(f.prefix()) + count(f.suffix());
      case Prompt.Chat c -> {
        int total = 0;
        for (Message m : c.messages()) {
          total += count(m.content());
        }
        yield total;
      }
    };
  }

  /**
   * A tokenizer-free estimate tuned to BPE vocabularies of English (GPT-style, 50k to 200k
   * entries), which keep common words whole and split digits into groups of up to 3:
   *
   * <ul>
   *   <li>a run of Latin letters: 1 token per started 10 letters ({@code the} 1, {@code
   *       responsibility} 2), with a single space before it free (BPE merges it into the word);
   *   <li>a run of digits: 1 token per started 3 digits ({@code 2024} 2);
   *   <li>a run of 2 or more whitespace characters: 1 token; a single one: none;
   *   <li>CJK ideographs, kana and hangul: 1 token each; other letters (Cyrillic, Greek, ...): 1
   *       per started 2;
   *   <li>any other character (punctuation, symbols): 1 token each.
   * </ul>
   *
   * On English prose this gives about 1.1 to 1.2 tokens a word (one a word plus punctuation); the
   * usual rule of thumb for GPT tokenizers is 1.3 (0.75 words a token), so expect it to undercount
   * English by around 10%, and to misjudge code, rare words and non-Latin scripts more. It has not
   * been checked against a real tokenizer; the exact tokenizers replace it. Estimates only: {@link
   * #exact()} is false.
   */
  static TokenEstimator heuristic() {
    return HeuristicTokenEstimator.INSTANCE;
  }

  /**
   * Counts with {@code tokenizer}: {@link #exact()} is true, so synthetic prompts are built to the
   * exact token count and {@code RequestSpec.promptTokensExact} is set.
   */
  static TokenEstimator exact(Tokenizer tokenizer) {
    Objects.requireNonNull(tokenizer, "tokenizer");
    return new TokenEstimator() {
      @Override
      public int count(CharSequence text) {
        return tokenizer.count(text);
      }

      @Override
      public boolean exact() {
        return true;
      }

      @Override
      public String toString() {
        return tokenizer.name();
      }
    };
  }
}
