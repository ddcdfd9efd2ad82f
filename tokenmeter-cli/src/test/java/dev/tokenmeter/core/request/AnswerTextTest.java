package dev.tokenmeter.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AnswerTextTest {
  private static final String[] PIECES = {
    "", " the", " Paris", "\n", "é", " café", "ÿ", "\u0100", " 日本", "👩‍👧", "\u0000", "x".repeat(300)
  };

  /** Every sequence of appends reads back as a StringBuilder given the same appends would. */
  @Test
  void readsBackExactlyWhatAStringBuilderHolds() {
    SplittableRandom rnd = new SplittableRandom(29);
    for (int round = 0; round < 300; round++) {
      boolean latin1Only = rnd.nextBoolean();
      AnswerText text = new AnswerText();
      StringBuilder expected = new StringBuilder();
      int n = rnd.nextInt(0, 400);
      for (int i = 0; i < n; i++) {
        String piece = PIECES[rnd.nextInt(latin1Only ? 7 : PIECES.length)];
        if (latin1Only && piece.chars().anyMatch(c -> c > 0xFF)) {
          continue;
        }
        text.append(piece);
        expected.append(piece);
      }
      assertSame(text, expected.toString());
    }
  }

  @Test
  void blockBoundariesHoldEveryChar() {
    for (int length : new int[] {0, 1, 255, 256, 257, 511, 512, 513, 5000}) {
      AnswerText text = new AnswerText();
      StringBuilder expected = new StringBuilder();
      for (int i = 0; i < length; i++) {
        char c = (char) (32 + i % 224); // every Latin-1 char from ' ' to 'ÿ'
        text.append(String.valueOf(c));
        expected.append(c);
      }
      assertSame(text, expected.toString());
      text.append("→"); // the first wide char after full blocks
      expected.append("→");
      assertSame(text, expected.toString());
    }
  }

  @Test
  void refusesIndexesOutsideTheText() {
    AnswerText text = new AnswerText();
    text.append("abc");
    assertThatThrownBy(() -> text.charAt(3)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> text.charAt(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> text.subSequence(2, 4)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  private static void assertSame(AnswerText text, String expected) {
    assertThat(text.length()).isEqualTo(expected.length());
    assertThat(text.toString()).isEqualTo(expected);
    assertThat(text.isEmpty()).isEqualTo(expected.isEmpty());
    for (int i = 0; i < expected.length(); i++) {
      if (text.charAt(i) != expected.charAt(i)) {
        throw new AssertionError("char " + i + ": " + (int) text.charAt(i) + " != " + (int) expected.charAt(i));
      }
    }
    int a = expected.length() / 3;
    int b = expected.length() - a;
    assertThat(text.subSequence(a, b).toString()).isEqualTo(expected.substring(a, b));
  }
}
