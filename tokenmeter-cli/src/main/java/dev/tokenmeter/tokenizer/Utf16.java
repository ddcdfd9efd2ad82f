package dev.tokenmeter.tokenizer;

/** UTF-16 clean-up shared by the implementations. */
final class Utf16 {
  private Utf16() {}

  /**
   * {@code text} as a String with every lone surrogate replaced by U+FFFD, as tiktoken and Hugging
   * Face tokenizers read one. Java's own UTF-8 encoder would write {@code '?'} instead, a different
   * token. One scan and no copy when there is no surrogate (the usual case).
   */
  static String wellFormed(CharSequence text) {
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (Character.isSurrogate(c)) {
        return replaceLoneSurrogates(text, i);
      }
    }
    return text.toString();
  }

  private static String replaceLoneSurrogates(CharSequence text, int from) {
    int n = text.length();
    StringBuilder sb = new StringBuilder(n);
    sb.append(text, 0, from);
    for (int i = from; i < n; i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
        sb.append(c).append(text.charAt(++i));
      } else if (Character.isSurrogate(c)) {
        sb.append('\uFFFD');
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
