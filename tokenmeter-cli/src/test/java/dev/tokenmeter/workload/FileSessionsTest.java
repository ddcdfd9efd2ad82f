package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.loadgen.Conversation;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recorded conversations replayed turn by turn, with the model's own answers. */
class FileSessionsTest {
  @TempDir Path tmp;

  private static RequestTimeline answered(RequestSpec spec, String text) {
    RequestTimeline t = new RequestTimeline(spec, 0, Phase.MEASURED, 0);
    t.sent(1);
    t.item(new StreamItem.Text(text, TextKind.CONTENT), 2);
    t.item(new StreamItem.Usage(spec.promptTokens() + 5, 7, 0, -1), 3);
    t.end(new Outcome.Completed("stop"), 4);
    return t;
  }

  private static List<Message> messages(RequestSpec spec) {
    return ((Prompt.Chat) spec.prompt()).messages();
  }

  @Test
  void shareGptConversationsReplayTheUserTurnsInOrderWithTheModelsOwnAnswers() throws Exception {
    Path file = tmp.resolve("chats.json");
    Files.writeString(file, """
        [
          {"conversations": [{"from": "human", "value": "only one question"}, {"from": "gpt", "value": "one answer"}]},
          {"conversations": [{"from": "system", "value": "Be brief."},
                             {"from": "human", "value": "What is TTFT?"}, {"from": "gpt", "value": "recorded 1"},
                             {"from": "human", "value": "And TPOT?"}, {"from": "gpt", "value": "recorded 2"},
                             {"from": "human", "value": "Thanks."}]}
        ]
        """);
    FileSessions s = new FileSessions(PromptFile.load(file), new LengthSpec.Fixed(10), new LengthSpec.Fixed(32),
        ThinkTime.NONE, 0, 1, TokenEstimator.heuristic());
    assertThat(s.size()).isEqualTo(1); // the one-question record is not a conversation
    Conversation c = s.open(4);
    RequestSpec t1 = c.next(0);
    assertThat(messages(t1)).containsExactly(new Message("system", "Be brief."), new Message("user", "What is TTFT?"));
    assertThat(t1.turn().turn()).isEqualTo(1);
    assertThat(c.answered(answered(t1, "Time to first token."))).isTrue();
    RequestSpec t2 = c.next(1);
    assertThat(messages(t2)).extracting(Message::content)
        .containsExactly("Be brief.", "What is TTFT?", "Time to first token.", "And TPOT?");
    assertThat(t2.promptTokens()).isEqualTo(t1.promptTokens() + 7 + TokenEstimator.heuristic().count("And TPOT?"));
    assertThat(c.answered(answered(t2, "Time per output token."))).isTrue();
    RequestSpec t3 = c.next(2);
    assertThat(messages(t3)).extracting(Message::content).doesNotContain("recorded 1", "recorded 2").endsWith("Thanks.");
    // Three recorded user turns: the session ends after them, whatever --turns allows.
    assertThat(c.answered(answered(t3, "You are welcome."))).isFalse();
    assertThat(c.end()).isEqualTo(Conversation.End.TURNS);
  }

  @Test
  void openAiMessagesReplayTheirUserTurnsAndTurnsCapsTheSession() throws Exception {
    Path file = tmp.resolve("chats.jsonl");
    Files.writeString(file, """
        {"messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}, {"role": "assistant", "content": "a2"}, {"role": "user", "content": "u3"}], "max_tokens": 9}
        """);
    FileSessions s = new FileSessions(PromptFile.load(file), new LengthSpec.Fixed(2), null, ThinkTime.NONE, 0, 1,
        TokenEstimator.heuristic());
    Conversation c = s.open(0);
    RequestSpec t1 = c.next(0);
    assertThat(t1.maxTokens()).hasValue(9);
    assertThat(c.answered(answered(t1, "x"))).isTrue();
    RequestSpec t2 = c.next(1);
    assertThat(messages(t2)).extracting(Message::content).containsExactly("S", "u1", "x", "u2");
    assertThat(c.answered(answered(t2, "y"))).isFalse();
  }

  @Test
  void aFileWithoutMultiTurnConversationsIsRefusedInOneLine() throws Exception {
    Path file = tmp.resolve("single.jsonl");
    Files.writeString(file, "{\"prompt\": \"hi\"}\n{\"messages\": [{\"role\": \"user\", \"content\": \"one\"}]}\n");
    PromptFile f = PromptFile.load(file);
    assertThat(FileSessions.multiTurn(f)).isEmpty();
    assertThatThrownBy(() -> new FileSessions(f, new LengthSpec.Fixed(3), null, ThinkTime.NONE, 0, 1,
        TokenEstimator.heuristic()))
        .isInstanceOf(WorkloadException.class)
        .hasMessageContaining("holds no conversation of 2 or more user turns")
        .hasMessageNotContaining("\n");
  }
}
