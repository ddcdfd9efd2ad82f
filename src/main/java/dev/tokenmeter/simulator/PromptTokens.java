package dev.tokenmeter.simulator;

import dev.tokenmeter.simulator.engine.BlockHashes;
import java.util.List;

/**
 * The simulator's deterministic estimate of prompt tokens, reported as {@code prompt_tokens}
 * until exact tokenizers arrive. Thread-safe (stateless).
 *
 * <ul>
 *   <li>text: {@code ceil(codePoints / 4)}, the usual "4 characters per token" of English BPE;
 *   <li>chat: {@code 3 + Σ (4 + text(content))} over the messages: 4 tokens of framing per message
 *       (start, role, separator, end) and 3 that prime the assistant's reply, as in OpenAI's
 *       token-counting recipe for chat models;
 *   <li>a completions prompt given as token ids: the number of ids (exact).
 * </ul>
 *
 * <p>For prefix caching, {@link #textIds} and {@link #chatIds} give each estimated token a stand-in
 * id with the same count: a content token is the hash of its 4 code points, a framing token the
 * hash of the message's role. Two prompts whose first messages are equal therefore share their
 * leading stand-in ids, as their real token ids would be shared.
 */
public final class PromptTokens {

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
    int[] ids = new int[chat(messageContents)];
    int at = 0;
    for (int m = 0; m < messageContents.size(); m++) {
      int role = roles.get(m).hashCode();
      for (int k = 0; k < 4; k++) {
        ids[at++] = (int) BlockHashes.mix(((long) role << 8) + k);
      }
      at = textIds(messageContents.get(m), ids, at);
    }
    for (int k = 0; k < 3; k++) {
      ids[at++] = (int) BlockHashes.mix(-1L - k);
    }
    return ids;
  }

  /** The chat estimate over the messages' text contents (one entry per message). */
  public static int chat(List<String> messageContents) {
    int total = 3;
    for (String content : messageContents) {
      total += 4 + text(content);
    }
    return total;
  }
}
