package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TokenEstimatorTest {

  private final TokenEstimator heuristic = TokenEstimator.heuristic();

  @ParameterizedTest(name = "[{0}] -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''                   | 0",
        "the                  | 1",
        "' the'               | 1", // a single space merges into the word
        "Hello, world!        | 4", // Hello , world !
        "responsibility       | 2", // 14 letters: 2 started tens
        "abcdefghij           | 1",
        "abcdefghijk          | 2",
        "123                  | 1",
        "2024                 | 2", // digits in groups of up to 3
        "1234567              | 3",
        "'a  b'               | 3", // a, a run of two spaces, b
        "café au lait         | 3", // accented Latin is Latin
        "日本語               | 3", // one per ideograph
        "привет               | 3", // other letters: one per started 2
        "x=1;                 | 4",
        "'It''s 5 o''clock.'  | 8", // It ' s 5 o ' clock .
      })
  void heuristicFollowsItsDocumentedRules(String text, int expected) {
    assertThat(heuristic.count(text)).isEqualTo(expected);
  }

  @Test
  void newlinesAndIndentationCountAsOneRun() {
    assertThat(heuristic.count("a\n\nb")).isEqualTo(3);
    assertThat(heuristic.count("a\nb")).isEqualTo(2);
    assertThat(heuristic.count("    return x;")).isEqualTo(4); // indent, return, x, ;
  }

  @Test
  void heuristicIsAnEstimate() {
    assertThat(heuristic.exact()).isFalse();
    TokenEstimator exact =
        new TokenEstimator() {
          @Override
          public int count(CharSequence text) {
            return text.length();
          }

          @Override
          public boolean exact() {
            return true;
          }
        };
    assertThat(exact.exact()).isTrue();
  }

  @Test
  void chatPromptsCountTheirContents() {
    Prompt chat =
        new Prompt.Chat(
            List.of(new Message("system", "Be brief."), new Message("user", "Hello, world!")));
    assertThat(heuristic.countPrompt(chat)).isEqualTo(3 + 4);
    assertThat(heuristic.countPrompt(new Prompt.Text("Hello, world!"))).isEqualTo(4);
  }

  @Test
  void englishProseComesToAboutOneTokenAWordPlusPunctuation() {
    String prose =
        "It was the best of times, it was the worst of times, it was the age of wisdom, it was"
            + " the age of foolishness, it was the epoch of belief, it was the epoch of"
            + " incredulity.";
    // 36 words, of which 2 have 11 letters (foolishness, incredulity: 2 each), 5 commas, 1 stop.
    assertThat(heuristic.count(prose)).isEqualTo(36 + 2 + 6);
  }
}
