package dev.tokenmeter.simulator;

import dev.tokenmeter.simulator.engine.BlockHashes;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * How the simulator counts a text's tokens: {@link #ids} gives one id per token, so their number is
 * the count the server reports ({@code usage.prompt_tokens}, with {@link PromptTokens}' chat
 * framing around a chat's messages) and their values are the content identity the prefix cache
 * keys on. Implementations are immutable and thread-safe.
 *
 * <p>The simulator knows no tokenizer itself (it depends on no tokenizer library); the command
 * line hands it the one bench would use for the served model ({@code sim serve --tokenizer},
 * docs/TOKENIZERS.md), so the simulator and bench count a prompt alike:
 *
 * <ul>
 *   <li>{@link #tokenizer}: a real tokenizer's ids;
 *   <li>{@link #counting}: an estimate that only counts (bench's heuristic): stand-in ids, as many
 *       as the whole text's count;
 *   <li>{@link #charsPerFour}: the simulator's own estimate when given none, {@code ceil(codePoints
 *       / 4)} ({@link PromptTokens#text}).
 * </ul>
 */
public interface PromptCounter {

  /** A short name for logs and docs: {@code hf:meta-llama/Llama-3.1-8B-Instruct}, {@code heuristic}. */
  String name();

  /** One id per token of {@code text} (no special tokens, no template); empty for empty text. */
  int[] ids(String text);

  /** The simulator's own estimate, {@code ceil(codePoints / 4)} with stand-in ids. */
  static PromptCounter charsPerFour() {
    return PromptTokens.CHARS_PER_FOUR;
  }

  /** A real tokenizer: {@code encode} gives the ids of a text. */
  static PromptCounter tokenizer(String name, Function<String, int[]> encode) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(encode, "encode");
    return new Named(name, text -> text.isEmpty() ? new int[0] : encode.apply(text));
  }

  /**
   * An estimate that only counts: {@code ids(text).length == count(text)}, with stand-in ids per
   * word (a run of white space and the non-space run after it), as many per word as {@code count}
   * gives it, so two texts that start with the same words share their leading ids as real token
   * ids would. When the words' counts do not add up to the whole text's (an estimate that is not
   * additive), the last ids are dropped or more are added: the count is always the whole text's.
   */
  static PromptCounter counting(String name, ToIntFunction<String> count) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(count, "count");
    return new Named(name, text -> standInIds(text, count));
  }

  private static int[] standInIds(String text, ToIntFunction<String> count) {
    int total = text.isEmpty() ? 0 : count.applyAsInt(text);
    int[] ids = new int[total];
    int at = 0;
    int start = 0;
    int n = text.length();
    while (start < n && at < total) {
      int end = start;
      while (end < n && Character.isWhitespace(text.charAt(end))) {
        end++;
      }
      while (end < n && !Character.isWhitespace(text.charAt(end))) {
        end++;
      }
      String word = text.substring(start, end);
      int tokens = count.applyAsInt(word);
      long h = word.hashCode();
      for (int k = 0; k < tokens && at < total; k++) {
        ids[at++] = (int) BlockHashes.mix((h << 16) + k);
      }
      start = end;
    }
    for (int k = 0; at < total; k++) {
      ids[at++] = (int) BlockHashes.mix(-(long) total - k); // a non-additive estimate's rest
    }
    return ids;
  }

  /** A counter by its name and its function from text to ids. */
  record Named(String name, Function<String, int[]> idsOf) implements PromptCounter {
    @Override
    public int[] ids(String text) {
      return idsOf.apply(text);
    }
  }
}
