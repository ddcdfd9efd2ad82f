package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.loadgen.Conversation;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import dev.tokenmeter.core.request.ToolCall;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How an agent session builds each step's messages from the server's answers. */
class AgentSessionsTest {

  private static AgentSessions sessions(int turns, int maxContext) {
    return new AgentSessions(new AgentSessions.Settings(new LengthSpec.Fixed(turns), new LengthSpec.Fixed(40),
        new LengthSpec.Fixed(64), new ThinkTime.Fixed(300_000_000L), new LengthSpec.Fixed(100), ThinkTime.NONE,
        maxContext, 7, PromptSynthesizer.standard(), 600, 16));
  }

  /** An answer: a tool call (id may be null, as Gemini sends) with arguments, or text; usage completion tokens. */
  private static RequestTimeline answer(RequestSpec spec, String id, String name, String arguments, String text,
      int completion) {
    RequestTimeline t = new RequestTimeline(spec, 0, Phase.MEASURED, 0);
    if (text != null) {
      t.item(new StreamItem.Text(text, TextKind.CONTENT), 1);
    }
    if (name != null) {
      t.item(new StreamItem.ToolCallStart(id, name), 2);
      t.item(new StreamItem.Text(arguments.substring(0, 3), TextKind.TOOL_CALL), 3);
      t.item(new StreamItem.Text(arguments.substring(3), TextKind.TOOL_CALL), 4);
    }
    t.item(new StreamItem.Usage(spec.promptTokens(), completion, -1), 5);
    return t;
  }

  private static List<Message> messages(RequestSpec s) {
    return ((Prompt.Chat) s.prompt()).messages();
  }

  @Test
  void aToolCallIsAppendedAndAnsweredByAToolResultWithItsId() {
    AgentSessions s = sessions(3, 0);
    Conversation c = s.open(0);
    RequestSpec first = c.next(0);
    assertThat(((Prompt.Chat) first.prompt()).tools()).isEqualTo(AgentSessions.TOOLS);
    assertThat(messages(first)).extracting(Message::role).containsExactly("system", "user");
    assertThat(first.promptTokens()).isGreaterThan(s.prefixTokens()).isGreaterThanOrEqualTo(600);
    assertThat(first.turn().turn()).isEqualTo(1);

    assertThat(c.answered(answer(first, "call_1", "read_file", "{\"path\":\"a.txt\"}", null, 6))).isTrue();
    assertThat(c.thinkNanos()).as("the tool time").isEqualTo(300_000_000L);
    RequestSpec second = c.next(1);
    List<Message> m = messages(second);
    assertThat(m).extracting(Message::role).containsExactly("system", "user", "assistant", "tool");
    assertThat(m.get(2).tool()).isEqualTo(new ToolCall("call_1", "read_file", "{\"path\":\"a.txt\"}"));
    assertThat(m.get(2).content()).isEmpty();
    assertThat(m.get(3).tool()).isEqualTo(new ToolCall("call_1", "read_file", null));
    // prompt(2) = prompt(1) + the call's 6 output tokens + the 100-token result (the estimate's rounding aside)
    assertThat(second.promptTokens()).isBetween(first.promptTokens() + 6 + 90, first.promptTokens() + 6 + 110);

    // a text answer has no call to answer: the result goes in a user message
    assertThat(c.answered(answer(second, null, null, null, "I will read it.", 5))).isTrue();
    RequestSpec third = c.next(2);
    List<Message> m3 = messages(third);
    assertThat(m3).extracting(Message::role).containsExactly("system", "user", "assistant", "tool", "assistant", "user");
    assertThat(m3.get(4)).isEqualTo(new Message("assistant", "I will read it."));
    assertThat(third.promptTokens()).isGreaterThanOrEqualTo(second.promptTokens() + 5 + 90);
    assertThat(c.answered(answer(third, "call_3", "run_command", "{\"command\":\"ls\"}", null, 4))).isFalse();
    assertThat(c.end()).isEqualTo(Conversation.End.TURNS);
  }

  @Test
  void aCallWithoutIdGetsOneAndCutArgumentsBecomeAnEmptyObject() {
    Conversation c = sessions(2, 0).open(5);
    RequestSpec first = c.next(0);
    c.answered(answer(first, null, "search_code", "{\"pattern\":\"fo", null, 64));
    ToolCall call = messages(c.next(1)).get(2).tool();
    assertThat(call).isEqualTo(new ToolCall("tm_5_1", "search_code", "{}"));
  }

  @Test
  void sessionsShareThePrefixButNotTheTask() {
    AgentSessions s = sessions(2, 0);
    List<Message> a = messages(s.open(0).next(0));
    List<Message> b = messages(s.open(1).next(0));
    assertThat(a.get(0)).isEqualTo(b.get(0));
    assertThat(a.get(1)).isNotEqualTo(b.get(1));
    assertThat(a.get(1).content()).startsWith("Task 0.");
  }

  @Test
  void theContextLimitEndsTheSessionBeforeAResultWouldExceedIt() {
    AgentSessions s = sessions(10, 0);
    int firstPrompt = s.open(0).next(0).promptTokens();
    Conversation c = sessions(10, firstPrompt + 50).open(0);
    RequestSpec first = c.next(0);
    assertThat(c.answered(answer(first, "call_1", "read_file", "{\"path\":\"a\"}", null, 5))).isFalse();
    assertThat(c.end()).isEqualTo(Conversation.End.MAX_CONTEXT);
  }
}
