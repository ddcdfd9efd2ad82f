package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.loadgen.Conversation;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Synthetic conversations: prompt growth, running counts, the context limit, think time, seeds. */
class SyntheticSessionsTest {

  private static SyntheticSessions sessions(LengthSpec turns, int maxContext, int system, ThinkTime think) {
    return new SyntheticSessions(new SyntheticSessions.Settings(turns, new LengthSpec.Fixed(50),
        new LengthSpec.Fixed(20), think, maxContext, 7, PromptSynthesizer.standard(), system, 32));
  }

  /** The turn {@code spec} answered with {@code text}, the server reporting usage when {@code completion >= 0}. */
  private static RequestTimeline answer(RequestSpec spec, String text, int prompt, int completion, int reasoning) {
    RequestTimeline t = new RequestTimeline(spec, 0, Phase.MEASURED, 0);
    t.sent(1);
    t.item(new StreamItem.Text(text, TextKind.CONTENT), 2);
    if (completion >= 0) {
      t.item(new StreamItem.Usage(prompt, completion, reasoning, -1), 3);
    }
    t.end(new Outcome.Completed("stop"), 4);
    return t;
  }

  private static List<Message> messages(RequestSpec spec) {
    return ((Prompt.Chat) spec.prompt()).messages();
  }

  @Test
  void eachTurnSendsTheWholeHistoryAndItsCountGrowsByTheAnswerAndTheNewMessage() {
    Conversation c = sessions(new LengthSpec.Fixed(3), 0, 30, ThinkTime.NONE).open(5);
    RequestSpec t1 = c.next(0);
    assertThat(t1.turn().session()).isEqualTo(5);
    assertThat(t1.turn().turn()).isEqualTo(1);
    assertThat(messages(t1)).extracting(Message::role).containsExactly("system", "user");
    assertThat(messages(t1).get(1).content()).startsWith("Conversation 5.");
    int system = TokenEstimator.heuristic().count(messages(t1).get(0).content());
    assertThat(t1.promptTokens()).isGreaterThan(system + 40);

    // The server reports 12 completion tokens, 2 of them reasoning (not appended to the history).
    assertThat(c.answered(answer(t1, "The answer is forty-two.", t1.promptTokens() + 8, 12, 2))).isTrue();
    RequestSpec t2 = c.next(1);
    List<Message> m2 = messages(t2);
    assertThat(m2).extracting(Message::role).containsExactly("system", "user", "assistant", "user");
    assertThat(m2.subList(0, 2)).isEqualTo(messages(t1));
    assertThat(m2.get(2).content()).isEqualTo("The answer is forty-two.");
    int newMessage = TokenEstimator.heuristic().count(m2.get(3).content());
    assertThat(t2.promptTokens()).isEqualTo(t1.promptTokens() + 10 + newMessage);
    assertThat(t2.turn().turn()).isEqualTo(2);

    // No usage: the answer is counted by the estimate of its text.
    String text = "A longer answer without any usage chunk at the end of its stream.";
    assertThat(c.answered(answer(t2, text, 0, -1, -1))).isTrue();
    RequestSpec t3 = c.next(2);
    int third = TokenEstimator.heuristic().count(messages(t3).get(5).content());
    assertThat(t3.promptTokens()).isEqualTo(t2.promptTokens() + TokenEstimator.heuristic().count(text) + third);

    assertThat(c.answered(answer(t3, "Bye.", 0, 2, 0))).isFalse();
    assertThat(c.end()).isEqualTo(Conversation.End.TURNS);
  }

  @Test
  void aSessionEndsBeforeItsNextPromptWouldPassTheContextLimit() {
    // Messages of ~50 tokens and answers of 100: turn 2 would need ~200 tokens.
    Conversation c = sessions(new LengthSpec.Fixed(10), 150, 0, ThinkTime.NONE).open(0);
    RequestSpec t1 = c.next(0);
    assertThat(t1.promptTokens()).isLessThan(150);
    assertThat(c.answered(answer(t1, "x", t1.promptTokens(), 100, 0))).isFalse();
    assertThat(c.end()).isEqualTo(Conversation.End.MAX_CONTEXT);
  }

  @Test
  void aFirstTurnThatAloneExceedsTheLimitIsNotSent() {
    Conversation c = sessions(new LengthSpec.Fixed(3), 20, 0, ThinkTime.NONE).open(0);
    assertThat(c.next(0)).isNull();
    assertThat(c.end()).isEqualTo(Conversation.End.MAX_CONTEXT);
  }

  @Test
  void theServersPromptCountGuardsTheLimitWhenItIsLarger() {
    Conversation c = sessions(new LengthSpec.Fixed(10), 400, 0, ThinkTime.NONE).open(0);
    RequestSpec t1 = c.next(0);
    // The client counts ~55 tokens, the server (chat template and all) 350: 350 + 10 + ~50 > 400.
    assertThat(c.answered(answer(t1, "ok", 350, 10, 0))).isFalse();
    assertThat(c.end()).isEqualTo(Conversation.End.MAX_CONTEXT);
  }

  @Test
  void turnsAndThinkTimesAreDrawnPerSessionAndRepeatUnderTheSameSeed() {
    SyntheticSessions s = sessions(new LengthSpec.Uniform(2, 6), 0, 0, new ThinkTime.Uniform(0, 1_000_000_000L));
    List<Integer> counts = new ArrayList<>();
    for (long id = 0; id < 40; id++) {
      counts.add(turnsOf(s.open(id)));
    }
    assertThat(counts).allMatch(n -> n >= 2 && n <= 6);
    assertThat(counts).contains(2, 6);
    SyntheticSessions again = sessions(new LengthSpec.Uniform(2, 6), 0, 0, new ThinkTime.Uniform(0, 1_000_000_000L));
    assertThat(messages(again.open(3).next(0))).isEqualTo(messages(s.open(3).next(0)));
    Conversation a = s.open(9);
    Conversation b = again.open(9);
    assertThat(a.thinkNanos()).isEqualTo(b.thinkNanos()).isBetween(0L, 1_000_000_000L);
  }

  private static int turnsOf(Conversation c) {
    int n = 0;
    RequestSpec spec = c.next(0);
    while (true) {
      n++;
      if (!c.answered(answer(spec, "a", 1, 1, 0))) {
        return n;
      }
      spec = c.next(n);
    }
  }

  @Test
  void thinkTimesFollowTheirDistribution() {
    SplittableRandom r = new SplittableRandom(1);
    assertThat(new ThinkTime.Fixed(5).sampleNanos(r)).isEqualTo(5);
    double sum = 0;
    ThinkTime e = new ThinkTime.Exponential(2_000_000_000L);
    for (int i = 0; i < 20_000; i++) {
      long v = e.sampleNanos(r);
      assertThat(v).isNotNegative();
      sum += v;
    }
    assertThat(sum / 20_000 / 1e9).isBetween(1.9, 2.1);
    assertThat(e.describe()).isEqualTo("exponential mean 2s");
    assertThat(new ThinkTime.Uniform(1_000_000_000L, 5_000_000_000L).describe()).isEqualTo("uniform 1s..5s");
  }
}
