package dev.tokenmeter.simulator;

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
 */
public final class PromptTokens {

  private PromptTokens() {}

  /** {@code ceil(codePoints / 4)}; 0 for empty text. */
  public static int text(CharSequence text) {
    int codePoints = Character.codePointCount(text, 0, text.length());
    return (codePoints + 3) / 4;
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
