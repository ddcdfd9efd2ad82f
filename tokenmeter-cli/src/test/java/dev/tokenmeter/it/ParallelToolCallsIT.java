package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.client.Api;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.ToolCall;
import dev.tokenmeter.simulator.OutputLengths;
import dev.tokenmeter.simulator.Script;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.RecordingSessions;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.workload.AgentSessions;
import dev.tokenmeter.workload.LengthSpec;
import dev.tokenmeter.workload.PromptSynthesizer;
import dev.tokenmeter.workload.ThinkTime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Parallel tool calls over real sockets: sim serve answers each tool step with 3 calls ({@code
 * --parallel-tool-calls 3}); the client's decoders read all 3 of every answer (OpenAI's
 * index-keyed deltas, Anthropic's tool_use blocks, Gemini's functionCall parts, Responses'
 * function_call items) and the next request the server receives carries the 3 calls and one result
 * per call, naming its id, in the API's own shape: OpenAI 3 {@code role: tool} messages with
 * {@code tool_call_id}, Anthropic one user message of 3 {@code tool_result} blocks, Gemini one user
 * content of 3 {@code functionResponse} parts, Responses 3 {@code function_call_output} items.
 */
@Timeout(120)
class ParallelToolCallsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int K = 3;

  @TempDir Path tmp;

  @ParameterizedTest(name = "{0} stream={1}")
  @CsvSource({"CHAT, true", "CHAT, false", "ANTHROPIC, true", "ANTHROPIC, false", "GEMINI, true", "GEMINI, false",
      "RESPONSES, true", "RESPONSES, false"})
  void everyCallOfAnAnswerIsReadAndAnsweredWithItsId(Api api, boolean stream) throws Exception {
    RecordingSessions r = new RecordingSessions(new AgentSessions(new AgentSessions.Settings(new LengthSpec.Fixed(4),
        new LengthSpec.Fixed(30), new LengthSpec.Fixed(96), new ThinkTime.Fixed(1_000_000L),
        new LengthSpec.Fixed(40), ThinkTime.NONE, 0, 3, PromptSynthesizer.standard(), 300, 16)));
    ConcurrentLinkedQueue<String> bodies = new ConcurrentLinkedQueue<>();
    Script keepBodies = request -> {
      bodies.add(request.body());
      return null; // the simulator's own answer: its tool calls
    };
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 1).parallelToolCalls(OutputLengths.fixed(K)).script(keepBodies))) {
      StageKit.run(StageKit.stage(sim).api(api).stream(stream).extraBody("{}").source(r).closed(2).requests(8));
    }
    Set<String> serverIds = new HashSet<>();
    int answersWithCalls = 0;
    for (RequestTimeline a : r.answers()) {
      List<ToolCall> calls = a.toolCalls();
      if (calls.isEmpty()) {
        continue;
      }
      answersWithCalls++;
      assertThat(calls).as("every call of the answer is read").hasSize(K);
      assertThat(a.toolCallCount()).isEqualTo(K);
      assertThat(calls).extracting(ToolCall::name).containsExactly("read_file", "search_code", "run_command");
      for (ToolCall c : calls) {
        assertThat(JSON.readTree(c.arguments()).isObject()).as(c.arguments()).isTrue();
        serverIds.add(c.id());
      }
    }
    assertThat(answersWithCalls).as("answers with tool calls").isGreaterThanOrEqualTo(2);
    if (api != Api.GEMINI) {
      assertThat(serverIds).as("distinct ids from the server").hasSize(answersWithCalls * K);
    }
    int answered = 0;
    for (String body : bodies) {
      List<String> callIds = new ArrayList<>();
      List<String> resultIds = new ArrayList<>();
      if (!read(api, JSON.readTree(body), callIds, resultIds)) {
        continue;
      }
      answered++;
      assertThat(callIds).as("the answer's calls, sent back: %s", body).hasSize(K);
      assertThat(resultIds).as("one result per call, by id, in order").isEqualTo(callIds);
      if (api != Api.GEMINI) {
        assertThat(serverIds).as("the ids the server sent").containsAll(callIds);
      }
    }
    assertThat(answered).as("requests that answered parallel calls").isGreaterThanOrEqualTo(2);
  }

  /**
   * Reads a request body whose last turn answers tool calls: the calls of the assistant turn before
   * the results (ids; Gemini, which has none, names) and the results' ids (names), in the API's
   * shape. False when the body's last turn is not tool results.
   */
  private static boolean read(Api api, JsonNode body, List<String> calls, List<String> results) {
    switch (api) {
      case CHAT -> {
        JsonNode m = body.path("messages");
        int i = m.size() - 1;
        while (i >= 0 && m.get(i).path("role").asText().equals("tool")) {
          results.add(0, m.get(i).path("tool_call_id").asText());
          i--;
        }
        if (results.isEmpty()) {
          return false;
        }
        m.get(i).path("tool_calls").forEach(c -> calls.add(c.path("id").asText()));
      }
      case ANTHROPIC -> {
        JsonNode m = body.path("messages");
        JsonNode last = m.get(m.size() - 1);
        last.path("content").forEach(b -> {
          if (b.path("type").asText().equals("tool_result")) {
            results.add(b.path("tool_use_id").asText());
          }
        });
        if (results.isEmpty()) {
          return false;
        }
        assertThat(last.path("role").asText()).isEqualTo("user");
        assertThat(last.path("content")).as("all results in one user message").hasSize(K);
        m.get(m.size() - 2).path("content").forEach(b -> {
          if (b.path("type").asText().equals("tool_use")) {
            calls.add(b.path("id").asText());
          }
        });
      }
      case GEMINI -> {
        JsonNode c = body.path("contents");
        JsonNode last = c.get(c.size() - 1);
        last.path("parts").forEach(p -> {
          if (p.has("functionResponse")) {
            results.add(p.path("functionResponse").path("name").asText());
          }
        });
        if (results.isEmpty()) {
          return false;
        }
        assertThat(last.path("parts")).as("all results in one content").hasSize(K);
        c.get(c.size() - 2).path("parts").forEach(p -> {
          if (p.has("functionCall")) {
            calls.add(p.path("functionCall").path("name").asText());
          }
        });
      }
      case RESPONSES -> {
        JsonNode in = body.path("input");
        int i = in.size() - 1;
        while (i >= 0 && in.get(i).path("type").asText().equals("function_call_output")) {
          results.add(0, in.get(i).path("call_id").asText());
          i--;
        }
        if (results.isEmpty()) {
          return false;
        }
        while (i >= 0 && in.get(i).path("type").asText().equals("function_call")) {
          calls.add(0, in.get(i).path("call_id").asText());
          i--;
        }
      }
      default -> throw new IllegalArgumentException(api.name());
    }
    return true;
  }

  /** bench's requests.jsonl says how many calls each answer carried. */
  @Test
  void requestsJsonlCountsTheCallsOfEachAnswer() throws Exception {
    Path out = tmp.resolve("run");
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 1).parallelToolCalls(OutputLengths.fixed(K)))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--api", "chat", "--profile", "agent", "--turns", "4",
          "--tool-time", "2ms", "--tool-result-tokens", "40", "--shared-prefix-tokens", "300", "--input-tokens", "30",
          "--output-tokens", "96", "--concurrency", "2", "--requests", "8", "--warmup", "0s", "--cooldown", "0s",
          "--out", out.toString(), "-q");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    int withCalls = 0;
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode l = JSON.readTree(line);
      if ("tool_calls".equals(l.path("finish_reason").asText())) {
        withCalls++;
        assertThat(l.path("tool_calls").asInt()).as(line).isEqualTo(K);
      } else {
        assertThat(l.has("tool_calls")).as("no calls, no count: " + line).isFalse();
      }
    }
    assertThat(withCalls).isGreaterThanOrEqualTo(2);
    // summary.json: answers that called tools, and every call in them (measured requests only)
    JsonNode agent = JSON.readTree(out.resolve("summary.json").toFile()).at("/stages/0/sessions/agent");
    assertThat(agent.path("calls").asLong()).isEqualTo(K * agent.path("tool_calls").asLong());
    assertThat(agent.path("tool_calls").asLong()).isPositive();
  }

  /** sim serve's flag: a count or a uniform range; anything else one line, exit 2. */
  @Test
  void badParallelToolCallsIsOneLineAndExitTwo() {
    for (String spec : new String[] {"0", "many", "uniform:3,1", "65"}) {
      Cli.Result r = Cli.run("sim", "serve", "--port", "0", "--parallel-tool-calls", spec);
      assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
      assertThat(r.err().strip().lines().count()).as(r.both()).isEqualTo(1);
      assertThat(r.err()).contains("--parallel-tool-calls");
    }
  }
}
