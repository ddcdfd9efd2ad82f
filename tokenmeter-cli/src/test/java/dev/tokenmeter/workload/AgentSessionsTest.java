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

  /**
   * Parallel calls streamed as OpenAI does, by index, their deltas interleaved: each keeps its own
   * arguments, the next step appends every call in order and answers each with a tool message of
   * its id, and the prompt grows by every result.
   */
  @Test
  void parallelCallsAreEachAppendedAndAnsweredWithTheirIds() {
    AgentSessions s = sessions(3, 0);
    Conversation c = s.open(0);
    RequestSpec first = c.next(0);
    RequestTimeline t = new RequestTimeline(first, 0, Phase.MEASURED, 0);
    t.item(new StreamItem.ToolCallStart("call_a", "read_file", 0), 1);
    t.item(new StreamItem.ToolCallStart("call_b", "search_code", 1), 1);
    t.item(new StreamItem.ToolCallStart(null, null, 0), 2);
    t.item(new StreamItem.Text("{\"path\":", TextKind.TOOL_CALL), 2);
    t.item(new StreamItem.ToolCallStart(null, null, 1), 3);
    t.item(new StreamItem.Text("{\"pattern\":\"x\"}", TextKind.TOOL_CALL), 3);
    t.item(new StreamItem.ToolCallStart(null, null, 0), 4);
    t.item(new StreamItem.Text("\"a.txt\"}", TextKind.TOOL_CALL), 4);
    t.item(new StreamItem.ToolCallStart("call_c", "run_command", 2), 5);
    t.item(new StreamItem.Text("{\"command\":\"ls\"}", TextKind.TOOL_CALL), 5);
    t.item(new StreamItem.Usage(first.promptTokens(), 15, -1), 6);
    assertThat(t.toolCallCount()).isEqualTo(3);
    assertThat(c.answered(t)).isTrue();
    RequestSpec second = c.next(1);
    List<Message> m = messages(second);
    assertThat(m).extracting(Message::role).containsExactly("system", "user", "assistant", "tool", "tool", "tool");
    assertThat(m.get(2).tools()).containsExactly(new ToolCall("call_a", "read_file", "{\"path\":\"a.txt\"}"),
        new ToolCall("call_b", "search_code", "{\"pattern\":\"x\"}"),
        new ToolCall("call_c", "run_command", "{\"command\":\"ls\"}"));
    assertThat(m.subList(3, 6)).extracting(r -> r.tool().id()).containsExactly("call_a", "call_b", "call_c");
    assertThat(m.subList(3, 6)).extracting(r -> r.tool().name()).containsExactly("read_file", "search_code", "run_command");
    // prompt(2) = prompt(1) + 15 output tokens + three 100-token results
    assertThat(second.promptTokens()).isBetween(first.promptTokens() + 15 + 270, first.promptTokens() + 15 + 330);
  }

  /** Gemini's calls come without ids: each call of one answer gets its own. */
  @Test
  void parallelCallsWithoutIdsGetDistinctOnes() {
    Conversation c = sessions(2, 0).open(4);
    RequestSpec first = c.next(0);
    RequestTimeline t = new RequestTimeline(first, 0, Phase.MEASURED, 0);
    for (String name : List.of("read_file", "read_file")) {
      t.item(new StreamItem.ToolCallStart(null, name), 1);
      t.item(new StreamItem.Text("{\"path\":\"a\"}", TextKind.TOOL_CALL), 1);
    }
    assertThat(c.answered(t)).isTrue();
    List<Message> m = messages(c.next(1));
    assertThat(m.get(2).tools()).extracting(ToolCall::id).containsExactly("tm_4_1", "tm_4_1_1");
    assertThat(m.subList(3, 5)).extracting(r -> r.tool().id()).containsExactly("tm_4_1", "tm_4_1_1");
  }

  /**
   * The calls of one answer run at once: the pause is the longest of their tool times. Tool times
   * uniform in [0, 1 s]: the mean pause after one call is about 0.5 s, after three (the largest of
   * three draws) about 0.75 s.
   */
  @Test
  void theStepWaitsForTheSlowestOfItsParallelCalls() {
    AgentSessions s = new AgentSessions(new AgentSessions.Settings(new LengthSpec.Fixed(3), new LengthSpec.Fixed(10),
        new LengthSpec.Fixed(16), new ThinkTime.Uniform(0, 1_000_000_000L), new LengthSpec.Fixed(10), ThinkTime.NONE, 0,
        11, PromptSynthesizer.standard(), 100, 4));
    double[] mean = new double[2];
    int sessions = 400;
    for (int k = 0; k < 2; k++) {
      int calls = k == 0 ? 1 : 3;
      long sum = 0;
      for (int i = 0; i < sessions; i++) {
        Conversation c = s.open(i);
        RequestSpec first = c.next(0);
        RequestTimeline t = new RequestTimeline(first, 0, Phase.MEASURED, 0);
        for (int j = 0; j < calls; j++) {
          t.item(new StreamItem.ToolCallStart("call_" + j, "read_file", j), 1);
          t.item(new StreamItem.Text("{}", TextKind.TOOL_CALL), 1);
        }
        assertThat(c.answered(t)).isTrue();
        sum += c.thinkNanos();
      }
      mean[k] = sum / (double) sessions / 1e9;
    }
    assertThat(mean[0]).isBetween(0.44, 0.56);
    assertThat(mean[1]).isBetween(0.70, 0.80);
  }
}
