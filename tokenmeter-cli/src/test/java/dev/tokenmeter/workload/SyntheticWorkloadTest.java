package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import java.util.HashSet;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SyntheticWorkloadTest {

  private static String text(RequestSpec spec) {
    return ((Prompt.Text) spec.prompt()).text();
  }

  @Test
  void specDependsOnlyOnSeedAndIdNotOnCallOrder() {
    LengthSpec input = LengthSpec.parse("uniform:50,500");
    LengthSpec output = LengthSpec.parse("normal:100,30");
    SyntheticWorkload inOrder = new SyntheticWorkload(input, output, 42);
    RequestSpec[] forward = new RequestSpec[20];
    for (int id = 0; id < 20; id++) {
      forward[id] = inOrder.next(id);
    }
    SyntheticWorkload reversed = new SyntheticWorkload(input, output, 42);
    for (int id = 19; id >= 0; id--) {
      assertThat(reversed.next(id)).isEqualTo(forward[id]);
    }
    assertThat(new SyntheticWorkload(input, output, 42).next(13)).isEqualTo(forward[13]);
    assertThat(inOrder.next(13)).isEqualTo(forward[13]); // asking twice gives the same spec
  }

  @Test
  void otherSeedsGiveOtherRequests() {
    LengthSpec input = LengthSpec.parse("uniform:50,500");
    RequestSpec a = new SyntheticWorkload(input, null, 1).next(0);
    RequestSpec b = new SyntheticWorkload(input, null, 2).next(0);
    assertThat(text(a)).isNotEqualTo(text(b));
  }

  @Test
  void outputSpecDoesNotChangeThePrompts() {
    LengthSpec input = LengthSpec.parse("lognormal:300,100");
    SyntheticWorkload without = new SyntheticWorkload(input, null, 7);
    SyntheticWorkload with = new SyntheticWorkload(input, LengthSpec.parse("uniform:10,20"), 7);
    for (int id = 0; id < 50; id++) {
      RequestSpec a = without.next(id);
      RequestSpec b = with.next(id);
      assertThat(b.prompt()).isEqualTo(a.prompt());
      assertThat(b.promptTokens()).isEqualTo(a.promptTokens());
      assertThat(a.maxTokens()).isEmpty();
      assertThat(b.maxTokens().getAsInt()).isBetween(10, 20);
      assertThat(b.id()).isEqualTo(id);
    }
  }

  @Test
  void promptTokensAreTheEstimatorsCountNearTheDrawnLength() {
    SyntheticWorkload w =
        new SyntheticWorkload(LengthSpec.parse("512"), LengthSpec.parse("128"), 3);
    for (int id = 0; id < 100; id++) {
      RequestSpec spec = w.next(id);
      assertThat(spec.promptTokensExact()).isFalse();
      assertThat(spec.promptTokens()).isEqualTo(TokenEstimator.heuristic().count(text(spec)));
      assertThat(spec.promptTokens()).isBetween(512, 515); // within 1% of N
      assertThat(spec.maxTokens()).isEqualTo(OptionalInt.of(128));
    }
  }

  @Test
  void promptLengthsFollowTheInputDistribution() {
    SyntheticWorkload w = new SyntheticWorkload(LengthSpec.parse("lognormal:200,80"), null, 9);
    double sum = 0;
    double sumSq = 0;
    int n = 4_000;
    for (int id = 0; id < n; id++) {
      int tokens = w.next(id).promptTokens();
      sum += tokens;
      sumSq += (double) tokens * tokens;
    }
    double mean = sum / n;
    // Overshoot adds about 0.5 token a prompt; standard error of the mean 80/sqrt(4000) = 1.3.
    assertThat(mean).isCloseTo(200.5, within(5.0));
    assertThat(Math.sqrt(sumSq / n - mean * mean)).isCloseTo(80, within(6.0));
  }

  @Test
  void promptsDifferAndStartDifferently() {
    SyntheticWorkload w = new SyntheticWorkload(LengthSpec.parse("100"), null, 11);
    Set<String> openings = new HashSet<>();
    for (int id = 0; id < 1_000; id++) {
      openings.add(text(w.next(id)).substring(0, 24));
    }
    assertThat(openings).hasSize(1_000);
  }

  @Test
  void sharedPrefixIsTheSameForEveryRequestAndSeeded() {
    PromptSynthesizer synth = PromptSynthesizer.standard();
    SyntheticWorkload w = new SyntheticWorkload(LengthSpec.parse("800"), null, 5, synth, 300);
    String prefix = w.sharedPrefix();
    assertThat(TokenEstimator.heuristic().count(prefix)).isBetween(300, 303);
    Set<String> tails = new HashSet<>();
    for (int id = 0; id < 100; id++) {
      RequestSpec spec = w.next(id);
      assertThat(text(spec)).startsWith(prefix + "\n\n");
      assertThat(spec.promptTokens()).isBetween(800, 803);
      tails.add(text(spec).substring(prefix.length() + 2, prefix.length() + 30));
    }
    assertThat(tails).hasSize(100);
    assertThat(new SyntheticWorkload(LengthSpec.parse("800"), null, 5, synth, 300).sharedPrefix())
        .isEqualTo(prefix);
    assertThat(new SyntheticWorkload(LengthSpec.parse("800"), null, 6, synth, 300).sharedPrefix())
        .isNotEqualTo(prefix);
    assertThat(new SyntheticWorkload(LengthSpec.parse("800"), null, 5).sharedPrefix()).isEmpty();
  }

  @Test
  void describesItself() {
    assertThat(
            new SyntheticWorkload(LengthSpec.parse("uniform:1,9"), LengthSpec.parse("64"), 1)
                .describe())
        .isEqualTo("synthetic input uniform 1..9, output fixed 64");
    assertThat(new SyntheticWorkload(LengthSpec.parse("5"), null, 1).describe())
        .isEqualTo("synthetic input fixed 5, output server default");
  }

  @Test
  void rejectsANegativePrefix() {
    assertThatThrownBy(
            () ->
                new SyntheticWorkload(
                    LengthSpec.parse("5"), null, 1, PromptSynthesizer.standard(), -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be negative");
  }

  @Test
  void preparedRequestsEqualTheSourcesAndFallThroughBeyondTheirCount() {
    SyntheticWorkload w =
        new SyntheticWorkload(LengthSpec.parse("uniform:20,200"), LengthSpec.parse("16"), 77);
    PreparedRequests prepared = new PreparedRequests(w, 64);
    assertThat(prepared.preparedCount()).isEqualTo(64);
    for (int id = 0; id < 80; id++) {
      assertThat(prepared.next(id)).isEqualTo(w.next(id));
    }
    assertThat(prepared.next(5)).isSameAs(prepared.next(5)); // built once, not again
  }

  @Test
  void lengthsOnlyDrawsTheSameLengthsWithoutText() {
    LengthSpec in = LengthSpec.parse("uniform:50,2000");
    LengthSpec out = LengthSpec.parse("lognormal:200,100");
    var full = new SyntheticWorkload(in, out, 21);
    var lengths = SyntheticWorkload.lengthsOnly(in, out, 21);
    for (long id = 0; id < 200; id++) {
      var a = full.next(id);
      var b = lengths.next(id);
      assertThat(b.maxTokens()).isEqualTo(a.maxTokens());
      assertThat(b.prompt().chars()).isZero();
      assertThat(b.promptTokensExact()).isTrue();
      // The heuristic text reaches the drawn length, overshooting by less than its last word.
      assertThat(a.promptTokens()).isBetween(b.promptTokens(), b.promptTokens() + 10);
    }
    assertThat(lengths.next(7)).isEqualTo(lengths.next(7));
  }
}
