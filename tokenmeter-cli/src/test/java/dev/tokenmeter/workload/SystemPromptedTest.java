package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** A system prompt put before every request's messages, its tokens added to the client's count. */
class SystemPromptedTest {
  /** One token per character: counts are easy to compute by hand. */
  private static final TokenEstimator CHARS = CharSequence::length;

  @Test
  void aTextPromptBecomesSystemThenUser() {
    RequestSource inner = id -> new RequestSpec(id, new Prompt.Text("hello"), 5, true, OptionalInt.of(7));
    RequestSpec s = new SystemPrompted(inner, "Be terse.", CHARS).next(3);
    assertThat(s.prompt()).isEqualTo(new Prompt.Chat(List.of(new Message("system", "Be terse."), new Message("user", "hello"))));
    assertThat(s.promptTokens()).isEqualTo(5 + 9);
    assertThat(s.promptTokensExact()).isTrue();
    assertThat(s.id()).isEqualTo(3);
    assertThat(s.maxTokens()).hasValue(7);
  }

  @Test
  void aChatKeepsItsMessagesAfterTheSystemOne() {
    List<Message> chat = List.of(new Message("user", "q1"), new Message("assistant", "a1"), new Message("user", "q2"));
    RequestSource inner = id -> new RequestSpec(id, new Prompt.Chat(chat), 6, false, OptionalInt.empty());
    SystemPrompted source = new SystemPrompted(inner, "sys", CHARS);
    RequestSpec s = source.next(0);
    assertThat(((Prompt.Chat) s.prompt()).messages())
        .containsExactly(new Message("system", "sys"), chat.get(0), chat.get(1), chat.get(2));
    assertThat(s.promptTokens()).isEqualTo(9);
    assertThat(s.promptTokensExact()).isFalse();
    assertThat(source.systemTokens()).isEqualTo(3);
  }

  @Test
  void anUnknownCountStaysUnknown() {
    RequestSource inner = id -> new RequestSpec(id, new Prompt.Text("x"), -1, false, OptionalInt.empty());
    assertThat(new SystemPrompted(inner, "sys", CHARS).next(0).promptTokens()).isEqualTo(-1);
  }

  @Test
  void theSameSeedGivesTheSameRequestsWithAndWithoutTheSystemPrompt() {
    LengthSpec in = LengthSpec.parse("uniform:8,64");
    LengthSpec out = LengthSpec.parse("16");
    RequestSource plain = new SyntheticWorkload(in, out, 7, PromptSynthesizer.standard(), 0);
    RequestSource again = new SyntheticWorkload(in, out, 7, PromptSynthesizer.standard(), 0);
    SystemPrompted withSystem = new SystemPrompted(again, "You are terse.", TokenEstimator.heuristic());
    for (long id = 0; id < 20; id++) {
      RequestSpec a = plain.next(id);
      RequestSpec b = withSystem.next(id);
      assertThat(b.promptTokens()).isEqualTo(a.promptTokens() + withSystem.systemTokens());
      List<Message> messages = ((Prompt.Chat) b.prompt()).messages();
      assertThat(messages.subList(1, messages.size()))
          .isEqualTo(a.prompt() instanceof Prompt.Chat c ? c.messages() : List.of(new Message("user", ((Prompt.Text) a.prompt()).text())));
    }
  }
}
