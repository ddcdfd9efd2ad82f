package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PromptSynthesizerTest {

  private final PromptSynthesizer synth = PromptSynthesizer.standard();
  private final TokenEstimator heuristic = TokenEstimator.heuristic();

  @Test
  void bundledVocabularyHasAtLeast1500DistinctLowercaseWords() {
    List<String> words = PromptSynthesizer.Vocabulary.WORDS;
    assertThat(new HashSet<>(words)).hasSize(words.size());
    assertThat(words.size()).isGreaterThanOrEqualTo(1_500);
    assertThat(words).allMatch(w -> w.matches("[a-z]+"));
    assertThat(synth.vocabularySize()).isEqualTo(words.size());
  }

  @ParameterizedTest(name = "{0} tokens")
  @ValueSource(ints = {1, 2, 7, 64, 512, 4096, 32768})
  void reachesTheTargetAndOvershootsByLessThanOneWord(int tokens) {
    for (long seed = 0; seed < 20; seed++) {
      PromptSynthesizer.Synthesized p = synth.text(tokens, new SplittableRandom(seed));
      assertThat(p.tokens()).isEqualTo(heuristic.count(p.text()));
      assertThat(p.exact()).isFalse();
      // The longest piece is a 14-letter word (2) plus a mark (1), or a 4-digit number (2).
      assertThat(p.tokens()).isBetween(tokens, tokens + 3);
      assertThat(p.tokens()).isLessThanOrEqualTo((int) Math.max(tokens * 1.1, tokens + 3));
    }
  }

  @Test
  void sameRandomSameTextOtherRandomOtherText() {
    String a = synth.text(300, new SplittableRandom(5)).text();
    String b = synth.text(300, new SplittableRandom(5)).text();
    String c = synth.text(300, new SplittableRandom(6)).text();
    assertThat(a).isEqualTo(b).isNotEqualTo(c);
  }

  @Test
  void textIsVariedEnglishNotOneRepeatedWord() {
    String text = synth.text(4_000, new SplittableRandom(1)).text();
    Map<String, Integer> counts = new HashMap<>();
    String[] words = text.toLowerCase().split("[^a-z]+");
    for (String w : words) {
      if (!w.isEmpty()) {
        counts.merge(w, 1, Integer::sum);
      }
    }
    assertThat(counts.size()).as("distinct words in 4,000 tokens").isGreaterThan(1_000);
    int most = counts.values().stream().max(Integer::compare).orElseThrow();
    assertThat(most).as("most frequent word").isLessThan(words.length / 20);
    assertThat(text).contains(". ").contains(", ");
    assertThat(text).matches("(?s)[A-Z].*"); // starts a sentence, no leading space
    assertThat(Character.isUpperCase(text.charAt(0))).isTrue();
  }

  @Test
  void promptsStartDifferently() {
    Set<String> openings = new HashSet<>();
    for (int i = 0; i < 2_000; i++) {
      String text = synth.text(50, new SplittableRandom(1_000 + i)).text();
      String[] words = text.split(" ");
      openings.add(String.join(" ", List.of(words).subList(0, 4)));
    }
    assertThat(openings).hasSize(2_000);
  }

  @Test
  void sharedPrefixComesFirstAndCountsTowardTheTotal() {
    String prefix = synth.text(200, new SplittableRandom(99)).text();
    int prefixTokens = heuristic.count(prefix);
    Set<String> tails = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      PromptSynthesizer.Synthesized p = synth.text(prefix, 500, new SplittableRandom(i));
      assertThat(p.text()).startsWith(prefix + "\n\n");
      assertThat(p.tokens()).isBetween(500, 503);
      String tail = p.text().substring(prefix.length() + 2);
      assertThat(heuristic.count(tail)).isBetween(500 - prefixTokens - 1, 503 - prefixTokens + 1);
      tails.add(tail.substring(0, 20));
    }
    assertThat(tails).hasSize(50);
  }

  @Test
  void aPrefixLongerThanTheTargetIsStillFollowedByOneUniqueSentence() {
    String prefix = synth.text(300, new SplittableRandom(99)).text();
    PromptSynthesizer.Synthesized p = synth.text(prefix, 100, new SplittableRandom(3));
    String tail = p.text().substring(prefix.length() + 2);
    assertThat(tail).matches("[A-Z][^.?!]*[.?!]"); // exactly one sentence
    assertThat(p.tokens()).isEqualTo(heuristic.count(p.text()));
  }

  @Test
  void subadditiveEstimatorIsToppedUpToTheTarget() {
    // Characters / 4 rounded down: each " word" alone is 1 or more, the whole text much less.
    TokenEstimator quarter = t -> t.length() / 4;
    PromptSynthesizer s = new PromptSynthesizer(quarter);
    for (int tokens : new int[] {10, 100, 1_000}) {
      PromptSynthesizer.Synthesized p = s.text(tokens, new SplittableRandom(tokens));
      assertThat(p.tokens()).isEqualTo(quarter.count(p.text())).isBetween(tokens, tokens + 5);
    }
  }

  @Test
  void superadditiveEstimatorIsTrimmedToTheShortestText() {
    // Short pieces cost 1, the whole text half its length: the writer overshoots about 3.5x.
    TokenEstimator steep = t -> t.length() <= 8 ? 1 : t.length() / 2;
    PromptSynthesizer s = new PromptSynthesizer(steep);
    PromptSynthesizer.Synthesized p = s.text(400, new SplittableRandom(8));
    assertThat(p.tokens()).isEqualTo(steep.count(p.text())).isGreaterThanOrEqualTo(400);
    String shorter = p.text().substring(0, p.text().lastIndexOf(' '));
    assertThat(steep.count(shorter)).isLessThan(400);
  }

  @Test
  void estimatorThatNeverGrowsIsRejectedNotLoopedOn() {
    PromptSynthesizer s = new PromptSynthesizer(t -> 0);
    assertThatThrownBy(() -> s.text(10, new SplittableRandom(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("must grow as text is added");
  }

  @Test
  void exactEstimatorMarksTheResultExact() {
    TokenEstimator exact =
        new TokenEstimator() {
          @Override
          public int count(CharSequence text) {
            return HeuristicTokenEstimator.INSTANCE.count(text);
          }

          @Override
          public boolean exact() {
            return true;
          }
        };
    assertThat(new PromptSynthesizer(exact).text(10, new SplittableRandom(1)).exact()).isTrue();
  }
}
