package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.loadgen.TypingConversation;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The typing bursts of {@code --profile completion}: their length, gaps and fill-in-the-middle prompts. */
class SyntheticCompletionsTest {
  private static final long MS = 1_000_000L;

  private static SyntheticCompletions source(long seed, long cancelAfter) {
    return new SyntheticCompletions(new SyntheticCompletions.Settings(new LengthSpec.Uniform(1024, 2048),
        new LengthSpec.Uniform(16, 64), new LengthSpec.Uniform(2, 6), new ThinkTime.Uniform(100 * MS, 200 * MS),
        new ThinkTime.Fixed(2000 * MS), cancelAfter, seed, PromptSynthesizer.standard(), 16));
  }

  /** Session {@code n}'s requests and the keystroke gap drawn after each. */
  private static List<Object[]> burst(SyntheticCompletions s, long session) {
    TypingConversation c = (TypingConversation) s.open(session);
    List<Object[]> out = new ArrayList<>();
    for (long id = 0; ; id++) {
      RequestSpec spec = c.next(id);
      long gap = c.keystrokeNanos();
      out.add(new Object[] {spec, gap});
      if (gap < 0) {
        assertThat(c.end()).isNotNull();
        assertThatThrownBy(() -> c.next(99)).isInstanceOf(IllegalStateException.class);
        return out;
      }
      assertThat(c.end()).isNull();
    }
  }

  @Test
  void aBurstIsTwoToSixKeystrokesApartWithTheSameDocumentAndOneMoreCharacterTypedEachTime() {
    SyntheticCompletions s = source(42, 0);
    java.util.Set<Integer> lengths = new java.util.TreeSet<>();
    for (long session = 0; session < 40; session++) {
      List<Object[]> b = burst(s, session);
      lengths.add(b.size());
      assertThat(b.size()).isBetween(2, 6);
      Prompt.Infill first = (Prompt.Infill) ((RequestSpec) b.get(0)[0]).prompt();
      for (int k = 0; k < b.size(); k++) {
        RequestSpec spec = (RequestSpec) b.get(k)[0];
        long gap = (long) b.get(k)[1];
        assertThat(spec.turn().session()).isEqualTo(session);
        assertThat(spec.turn().turn()).isEqualTo(k + 1);
        assertThat(spec.maxTokens().getAsInt()).isBetween(16, 64);
        assertThat(spec.promptTokens()).isBetween(1024, 2048 + 20);
        Prompt.Infill p = (Prompt.Infill) spec.prompt();
        assertThat(p.suffix()).isEqualTo(first.suffix());
        // What was typed so far sits at the cursor: the earlier prefix is this one's prefix.
        assertThat(p.prefix()).startsWith(first.prefix().substring(0, first.prefix().length() - 1))
            .hasSize(first.prefix().length() + k);
        assertThat(p.prefix()).startsWith("// file " + session + "\n");
        if (k < b.size() - 1) {
          assertThat(gap).isBetween(100 * MS, 200 * MS);
        } else {
          assertThat(gap).isEqualTo(-1);
        }
      }
    }
    assertThat(lengths).containsExactly(2, 3, 4, 5, 6);
  }

  @Test
  void seededAndTheCancelRuleAndPauseAreTheSettings() {
    List<Object[]> a = burst(source(7, 0), 3);
    List<Object[]> b = burst(source(7, 0), 3);
    assertThat(a).hasSameSizeAs(b);
    for (int k = 0; k < a.size(); k++) {
      assertThat(a.get(k)[0]).isEqualTo(b.get(k)[0]);
      assertThat(a.get(k)[1]).isEqualTo(b.get(k)[1]);
    }
    TypingConversation c = (TypingConversation) source(7, 300 * MS).open(0);
    assertThat(c.cancelAfterNanos()).isEqualTo(300 * MS);
    assertThat(c.pauseNanos()).isEqualTo(2000 * MS);
    assertThat(source(7, 0).describe()).contains("bursts of uniform").contains("keystroke gap");
  }
}
