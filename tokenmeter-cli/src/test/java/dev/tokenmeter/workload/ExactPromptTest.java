package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.tokenizer.Tokenizer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Synthetic prompts sized by a real tokenizer hit the requested count exactly, by re-encoding. */
class ExactPromptTest {

  static Tokenizer tokenizer(String name) {
    if (name.startsWith("o") || name.startsWith("cl")) {
      return Tokenizer.openAi(name);
    }
    Path dir = Path.of(System.getProperty("tokenmeter.testTokenizers", "tokenmeter-cli/target/test-tokenizers"));
    return Tokenizer.huggingFace(dir.resolve(name).resolve("tokenizer.json"), name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"o200k_base", "cl100k_base", "llama3", "qwen3", "llama2"})
  void everyLengthIsHitExactly(String name) {
    Tokenizer t = tokenizer(name);
    PromptSynthesizer synth = new PromptSynthesizer(TokenEstimator.exact(t));
    int[] targets = {1, 2, 3, 5, 17, 64, 100, 257, 512, 1000, 2048};
    for (int target : targets) {
      for (int seed = 0; seed < 5; seed++) {
        PromptSynthesizer.Synthesized p = synth.text(target, new SplittableRandom(seed));
        assertThat(t.encode(p.text()).length).as(name + " target " + target + " seed " + seed)
            .isEqualTo(target);
        assertThat(p.tokens()).isEqualTo(target);
        assertThat(p.exact()).isTrue();
        assertThat(p.text()).doesNotStartWith(" ");
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"o200k_base", "llama3"})
  void syntheticWorkloadSpecsAreExactAndVaried(String name) {
    Tokenizer t = tokenizer(name);
    SyntheticWorkload w =
        new SyntheticWorkload(
            LengthSpec.parse("uniform:50,700"),
            new LengthSpec.Fixed(10),
            42,
            new PromptSynthesizer(TokenEstimator.exact(t)),
            /* sharedPrefixTokens= */ 100);
    Set<String> firstWordsAfterPrefix = new HashSet<>();
    for (long id = 0; id < 40; id++) {
      RequestSpec spec = w.next(id);
      String text = ((Prompt.Text) spec.prompt()).text();
      assertThat(spec.promptTokensExact()).isTrue();
      assertThat(t.count(text)).as("request " + id).isEqualTo(spec.promptTokens());
      assertThat(text).startsWith(w.sharedPrefix());
      String rest = text.substring(w.sharedPrefix().length());
      firstWordsAfterPrefix.add(rest.strip().split(" ")[0]);
      // The requested length is drawn in 50..700 and includes the prefix; the prefix is 100.
      assertThat(spec.promptTokens()).isBetween(100, 700);
    }
    assertThat(firstWordsAfterPrefix.size()).isGreaterThan(30); // not one repeated text
  }
}
