package dev.tokenmeter.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Word counts by hand, one rule per case. */
class WordsTest {

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "\"\"|0",
        "\"   \t  \"|0",
        "... !!! -- 👍 '|0", // punctuation, symbols and emoji are not words
        "Hello, world!|2",
        "don't stop|2", // an apostrophe between letters stays inside
        "it’s 'quoted'|2", // a typographic apostrophe joins too; quotes around a word do not
        "3.14 and 1,000.|3", // . and , between digits stay inside; a trailing period does not
        "state-of-the-art|4", // hyphens split, as in UAX #29
        "e.g.|2",
        "cafe\u0301 nai\u0308ve|2", // combining marks belong to their letter
        "x2 H2O 42nd|3",
        "日本語のテキスト|8", // every Han, Hiragana and Katakana character is a word
        "Tokyo 東京 is big|5",
        "안녕하세요 세계|2", // Hangul is written with spaces
        "مرحبا بالعالم|2",
        "Привет, мир|2",
        "สวัสดีครับ ชาวโลก|2", // Thai without spaces: one word per run (an undercount)
        "snake_case camelCase|3", // the underscore is connector punctuation: it splits
      })
  void counts(String text, long expected) {
    assertThat(Words.count(text)).isEqualTo(expected);
  }

  /** The fast path below U+2E80 agrees with the full script lookup on every code point. */
  @Test
  void ideographicFastPathAgreesWithTheScriptLookupEverywhere() {
    for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
      Character.UnicodeScript s = Character.UnicodeScript.of(cp);
      boolean full =
          Character.isIdeographic(cp)
              || s == Character.UnicodeScript.HIRAGANA
              || s == Character.UnicodeScript.KATAKANA;
      if (Words.isIdeographic(cp) != full) {
        assertThat(Words.isIdeographic(cp)).as("U+%04X", cp).isEqualTo(full);
      }
    }
    assertThat(Words.isIdeographic('\u3041')).isTrue(); // Hiragana, just above the bound
  }
}
