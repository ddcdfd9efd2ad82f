package dev.tokenmeter.workload;

/**
 * The rules of {@link TokenEstimator#heuristic()}: one pass over the characters, a table lookup for
 * ASCII, no allocation. Additive over pieces split before a single space or at a change of
 * character kind, which lets {@link PromptSynthesizer} sum per-word costs. Thread-safe.
 */
final class HeuristicTokenEstimator implements TokenEstimator {
  static final HeuristicTokenEstimator INSTANCE = new HeuristicTokenEstimator();

  static final int LETTERS_PER_TOKEN = 10;
  static final int DIGITS_PER_TOKEN = 3;
  static final int OTHER_LETTERS_PER_TOKEN = 2;

  // Character kinds. OTHER is never a run: each such character is a token of its own.
  private static final byte LATIN = 0;
  private static final byte DIGIT = 1;
  private static final byte SPACE = 2;
  private static final byte WIDE = 3;
  private static final byte LETTER = 4;
  private static final byte OTHER = 5;
  private static final byte NONE = -1;

  private static final byte[] ASCII = new byte[128];

  static {
    for (int c = 0; c < 128; c++) {
      ASCII[c] = kindOf(c);
    }
  }

  private HeuristicTokenEstimator() {}

  @Override
  public int count(CharSequence text) {
    int tokens = 0;
    byte kind = NONE;
    int run = 0;
    int n = text.length();
    for (int i = 0; i < n; ) {
      char ch = text.charAt(i);
      byte k;
      if (ch < 128) {
        k = ASCII[ch];
        i++;
      } else {
        int cp = Character.codePointAt(text, i);
        k = kindOf(cp);
        i += Character.charCount(cp);
      }
      if (k == kind && k != OTHER) {
        run++;
      } else {
        tokens += tokensOf(kind, run);
        kind = k;
        run = 1;
      }
    }
    return tokens + tokensOf(kind, run);
  }

  private static int tokensOf(byte kind, int run) {
    return switch (kind) {
      case LATIN -> ceilDiv(run, LETTERS_PER_TOKEN);
      case DIGIT -> ceilDiv(run, DIGITS_PER_TOKEN);
      case SPACE -> run >= 2 ? 1 : 0;
      case WIDE -> run;
      case LETTER -> ceilDiv(run, OTHER_LETTERS_PER_TOKEN);
      case OTHER -> 1;
      default -> 0; // NONE: nothing seen yet
    };
  }

  @Override
  public String toString() {
    return "heuristic";
  }

  private static byte kindOf(int cp) {
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) {
      return LATIN;
    }
    if (cp >= '0' && cp <= '9') {
      return DIGIT;
    }
    if (Character.isWhitespace(cp)) {
      return SPACE;
    }
    if (!Character.isLetter(cp)) {
      return OTHER;
    }
    if (cp <= 0x024F) {
      return LATIN; // accented Latin: é, ñ, ß
    }
    return switch (Character.UnicodeScript.of(cp)) {
      case HAN, HIRAGANA, KATAKANA, HANGUL -> WIDE;
      default -> LETTER;
    };
  }

  private static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }
}
