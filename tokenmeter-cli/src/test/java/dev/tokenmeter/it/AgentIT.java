package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.client.Api;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.ToolCall;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.RecordingSessions;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.workload.AgentSessions;
import dev.tokenmeter.workload.LengthSpec;
import dev.tokenmeter.workload.PromptSynthesizer;
import dev.tokenmeter.workload.ThinkTime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Agent loops ({@code --profile agent}) against sim serve over real sockets, in each API that has
 * tools: the server's tool calls happen, each is appended and answered by a tool result naming the
 * call's id as the server sent it, and the server's own prompt count grows by at least the answer
 * and the result: prompt(k+1) >= prompt(k) + answer(k) + result(k).
 */
@Timeout(120)
class AgentIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int RESULT_TOKENS = 60;

  @TempDir Path tmp;

  @ParameterizedTest(name = "{0} stream={1}")
  @CsvSource({"CHAT, true", "CHAT, false", "ANTHROPIC, true", "ANTHROPIC, false", "GEMINI, true", "GEMINI, false",
      "RESPONSES, true", "RESPONSES, false"})
  void toolCallsAreAnsweredWithTheirIdsAndThePromptGrowsByAnswerAndResult(Api api, boolean stream) {
    RecordingSessions source = new RecordingSessions(new AgentSessions(new AgentSessions.Settings(new LengthSpec.Fixed(4),
        new LengthSpec.Fixed(30), new LengthSpec.Fixed(48), new ThinkTime.Fixed(2_000_000L),
        new LengthSpec.Fixed(RESULT_TOKENS), ThinkTime.NONE, 0, 3, PromptSynthesizer.standard(), 300, 16)));
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 2))) {
      StageKit.run(StageKit.stage(sim).api(api).stream(stream).extraBody("{}").source(source).closed(2).requests(12));
    }
    int calls = 0;
    int results = 0;
    int pairs = 0;
    for (Map.Entry<Long, List<RequestTimeline>> e : source.answersBySession().entrySet()) {
      List<RequestTimeline> got = e.getValue();
      List<RequestSpec> sent = source.sent(e.getKey());
      for (int k = 0; k < got.size(); k++) {
        RequestTimeline answer = got.get(k);
        assertThat(answer.usagePromptTokens()).as("usage reported").isPositive();
        if (!answer.toolCalls().isEmpty()) {
          calls++;
          ToolCall call = answer.toolCalls().get(0);
          assertThat(call.name()).isIn(AgentSessions.TOOLS.stream().map(t -> t.name()).toList());
          assertThat(call.arguments()).startsWith("{").endsWith("}");
          if (api == Api.GEMINI) {
            assertThat(call.id()).as("Gemini sends no id").isEmpty();
          } else {
            assertThat(call.id()).as("the server's id").startsWith(api == Api.ANTHROPIC ? "toolu_" : "call_");
          }
        }
        if (k + 1 >= sent.size() || k + 1 >= got.size()) {
          continue;
        }
        List<Message> next = ((Prompt.Chat) sent.get(k + 1).prompt()).messages();
        Message appended = next.get(next.size() - 2);
        Message result = next.get(next.size() - 1);
        if (!answer.toolCalls().isEmpty()) {
          results++;
          String id = answer.toolCalls().get(0).id();
          assertThat(appended.tool().id()).isEqualTo(id.isEmpty() ? "tm_" + e.getKey() + "_" + (k + 1) : id);
          assertThat(result.role()).isEqualTo("tool");
          assertThat(result.tool().id()).as("the result answers the call's id").isEqualTo(appended.tool().id());
        } else {
          assertThat(appended.tool()).isNull();
          assertThat(result.role()).isEqualTo("user");
        }
        RequestTimeline after = got.get(k + 1);
        // the server's own count: the history it was sent holds the answer and the result
        assertThat(after.usagePromptTokens())
            .as("session %d turn %d", e.getKey(), k + 2)
            .isGreaterThanOrEqualTo(answer.usagePromptTokens() + answer.usageCompletionTokens() + RESULT_TOKENS * 9 / 10);
        pairs++;
      }
    }
    assertThat(calls).as("tool calls made").isPositive();
    assertThat(results).as("tool results sent").isPositive();
    assertThat(pairs).isGreaterThanOrEqualTo(4);
  }

  @Test
  void benchProfileAgentCountsToolStepsInTheSummary() throws Exception {
    Path out = tmp.resolve("run");
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 2))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--api", "anthropic", "--profile", "agent", "--turns", "4",
          "--tool-time", "5ms", "--tool-result-tokens", "50", "--shared-prefix-tokens", "400", "--input-tokens", "30",
          "--output-tokens", "48", "--concurrency", "2", "--requests", "12", "--warmup", "0s", "--cooldown", "0s",
          "--out", out.toString(), "-q");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    JsonNode agent = summary.path("stages").path(0).path("sessions").path("agent");
    assertThat(agent.path("steps").asLong()).as(agent.toString()).isGreaterThanOrEqualTo(12);
    assertThat(agent.path("tool_calls").asLong()).isPositive();
    assertThat(agent.path("tool_results").asLong()).isPositive();
    assertThat(agent.path("tool_call_share").asDouble()).isBetween(0.3, 0.7); // sim: call, text, call, text
  }

  @Test
  void badAgentInputIsOneLineAndExitTwo() {
    String[][] cases = {
        {"--tool-time", "1s"},
        {"--profile", "agent", "--turns", "4", "--api", "tgi"},
        {"--profile", "agent"},
        {"--profile", "robot", "--turns", "4"},
        {"--profile", "agent", "--turns", "4", "--tool-time", "soon"},
    };
    for (String[] c : cases) {
      List<String> args = new ArrayList<>(List.of("bench", "--url", "http://127.0.0.1:9", "--requests", "1"));
      args.addAll(List.of(c));
      Cli.Result r = Cli.run(args.toArray(String[]::new));
      assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
      assertThat(r.err().strip().lines().count()).as(r.both()).isEqualTo(1);
    }
  }
}
