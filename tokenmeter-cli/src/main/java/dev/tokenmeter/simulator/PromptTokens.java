package dev.tokenmeter.simulator;

import dev.tokenmeter.simulator.engine.BlockHashes;
import java.util.List;

/**
 * The simulator's count of prompt tokens, reported as {@code prompt_tokens}. Thread-safe
 * (stateless).
 *
 * <ul>
 *   <li>text: the {@link PromptCounter}'s count (bench's tokenizer for the served model, or bench's
 *       estimate, when the command line gives one); without one {@code ceil(codePoints / 4)}, the
 *       usual "4 characters per token" of English BPE ({@link #text});
 *   <li>chat: {@code 3 + Σ (4 + text(content))} over the messages: {@value #FRAMING_PER_MESSAGE}
 *       tokens of framing per message (start, role, separator, end) and {@value #REPLY_PRIMING}
 *       that prime the assistant's reply, as in OpenAI's token-counting recipe for chat models: the
 *       simulator's fixed chat template, which bench's count of the raw prompt leaves out;
 *   <li>a completions prompt given as token ids: the number of ids (exact).
 * </ul>
 *
 * <p>For prefix caching, {@link #textIds} and {@link #chatIds} give each estimated token a stand-in
 * id with the same count: a content token is the hash of its 4 code points, a framing token the
 * hash of the message's role. Two prompts whose first messages are equal therefore share their
 * leading stand-in ids, as their real token ids would be shared. A {@link PromptCounter} gives
 * its own ids for the contents (a tokenizer's real ones).
 */
public final class PromptTokens {

  /** Framing tokens around each chat message: start, role, separator, end. */
  public static final int FRAMING_PER_MESSAGE = 4;

  /** Tokens after the last message that prime the assistant's reply. */
  public static final int REPLY_PRIMING = 3;

  /** {@link PromptCounter#charsPerFour()}. */
  static final PromptCounter CHARS_PER_FOUR =
      new PromptCounter() {
        @Override
        public String name() {
          return "4 characters per token";
        }

        @Override
        public int[] ids(String text) {
          return textIds(text);
        }

        @Override
        public String toString() {
          return name();
        }
      };

  private PromptTokens() {}

  /** {@code ceil(codePoints / 4)}; 0 for empty text. */
  public static int text(CharSequence text) {
    int codePoints = Character.codePointCount(text, 0, text.length());
    return (codePoints + 3) / 4;
  }

  /** Stand-in ids of {@link #text}'s tokens, appended to {@code out} from {@code at}; returns the end. */
  static int textIds(String text, int[] out, int at) {
    int i = 0;
    while (i < text.length()) {
      long h = 0;
      for (int k = 0; k < 4 && i < text.length(); k++) {
        int cp = text.codePointAt(i);
        h = h * 1_114_112L + cp; // one more than the last code point: no two groups collide
        i += Character.charCount(cp);
      }
      out[at++] = (int) BlockHashes.mix(h);
    }
    return at;
  }

  /** Stand-in ids of a text prompt: {@link #text} of them. */
  public static int[] textIds(String text) {
    int[] ids = new int[text(text)];
    textIds(text, ids, 0);
    return ids;
  }

  /**
   * Stand-in ids of a chat prompt, {@link #chat} of them: per message 4 framing ids (from the role)
   * then its content's, and 3 ids priming the reply at the end.
   */
  public static int[] chatIds(List<String> roles, List<String> messageContents) {
    return chatIds(roles, messageContents, CHARS_PER_FOUR);
  }

  /**
   * Ids of a chat prompt whose contents {@code counter} counts: per message {@value
   * #FRAMING_PER_MESSAGE} framing ids (from the role) then its content's, and {@value
   * #REPLY_PRIMING} ids priming the reply at the end.
   */
  public static int[] chatIds(List<String> roles, List<String> messageContents, PromptCounter counter) {
    int[][] contents = new int[messageContents.size()][];
    int length = REPLY_PRIMING;
    for (int m = 0; m < contents.length; m++) {
      contents[m] = counter.ids(messageContents.get(m));
      length += FRAMING_PER_MESSAGE + contents[m].length;
    }
    int[] ids = new int[length];
    int at = 0;
    for (int m = 0; m < contents.length; m++) {
      int role = roles.get(m).hashCode();
      for (int k = 0; k < FRAMING_PER_MESSAGE; k++) {
        ids[at++] = (int) BlockHashes.mix(((long) role << 8) + k);
      }
      System.arraycopy(contents[m], 0, ids, at, contents[m].length);
      at += contents[m].length;
    }
    for (int k = 0; k < REPLY_PRIMING; k++) {
      ids[at++] = (int) BlockHashes.mix(-1L - k);
    }
    return ids;
  }

  /** The chat estimate over the messages' text contents (one entry per message). */
  public static int chat(List<String> messageContents) {
    int total = REPLY_PRIMING;
    for (String content : messageContents) {
      total += FRAMING_PER_MESSAGE + text(content);
    }
    return total;
  }
}
