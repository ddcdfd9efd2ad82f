package dev.tokenmeter.core.metrics;

/**
 * Counts the words of generated text, Unicode-aware, for {@code words_per_output_token}.
 *
 * <p>A word is a maximal run of letters, combining marks and digits (Unicode categories L*, M*,
 * N*), loosely after UAX #29's word boundaries: an apostrophe ({@code '} or {@code ’}) between two
 * letters stays inside the word ({@code don't} is one word), as does a {@code .} or {@code ,}
 * between two digits ({@code 3.14}, {@code 1,000}). Everything else (white space, punctuation,
 * symbols, emoji) separates words and is not counted. Scripts written without spaces: each Han
 * ideograph, Hiragana and Katakana character counts as one word (as word processors count East
 * Asian text); Thai, Lao, Khmer and Myanmar runs count as one word per space-separated run, an
 * undercount, since splitting them needs a dictionary. Hangul is written with spaces and counts
 * like Latin.
 *
 * <p>Stateless and thread-safe; one pass, no allocation.
 *
 * <p>Cost: it runs once per answer on the counting thread, over every character. Below U+2E80 no
 * character is Han, Hiragana or Katakana, so the script lookup ({@link Character.UnicodeScript#of},
 * a binary search over 2,000 ranges) is skipped there: in a zero-delay bench profile it was 57% of
 * the counting thread's samples (docs/PERFORMANCE.md, "Client against wrk").
 */
public final class Words {
  private Words() {}

  /** Words in {@code text}. */
  public static long count(CharSequence text) {
    long words = 0;
    boolean inWord = false;
    int prev = -1; // previous code point inside the current word, -1 outside one
    int n = text.length();
    for (int i = 0; i < n; ) {
      int cp = Character.codePointAt(text, i);
      i += Character.charCount(cp);
      if (isIdeographic(cp)) {
        words++;
        inWord = false;
        continue;
      }
      if (isWordChar(cp)) {
        if (!inWord) {
          words++;
          inWord = true;
        }
        prev = cp;
        continue;
      }
      if (inWord && i < n && joins(prev, cp, Character.codePointAt(text, i))) {
        continue; // stays in the word; the next code point is checked on its own
      }
      inWord = false;
    }
    return words;
  }

  private static boolean isWordChar(int cp) {
    return Character.isLetterOrDigit(cp)
        || switch (Character.getType(cp)) {
          case Character.NON_SPACING_MARK,
              Character.COMBINING_SPACING_MARK,
              Character.ENCLOSING_MARK,
              Character.LETTER_NUMBER,
              Character.OTHER_NUMBER -> true;
          default -> false;
        };
  }

  /** {@code mid} joins {@code before} and {@code after} into one word (MidLetter, MidNum). */
  private static boolean joins(int before, int mid, int after) {
    if (mid == '\'' || mid == '\u2019') {
      return Character.isLetter(before) && Character.isLetter(after) && !isIdeographic(after);
    }
    if (mid == '.' || mid == ',') {
      return Character.isDigit(before) && Character.isDigit(after);
    }
    return false;
  }

  /** The first code point of any Han, Hiragana or Katakana character (CJK Radicals Supplement). */
  static final int FIRST_IDEOGRAPHIC = 0x2E80;

  static boolean isIdeographic(int cp) {
    if (cp < FIRST_IDEOGRAPHIC) {
      return false;
    }
    if (Character.isIdeographic(cp)) {
      return true;
    }
    Character.UnicodeScript s = Character.UnicodeScript.of(cp);
    return s == Character.UnicodeScript.HIRAGANA || s == Character.UnicodeScript.KATAKANA;
  }
}
