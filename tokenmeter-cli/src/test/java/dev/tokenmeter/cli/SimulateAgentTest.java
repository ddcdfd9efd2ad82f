package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code simulate --profile agent}: the virtual engine answers a step with a tool call, as sim serve
 * does, and the step after a tool result in text; the loops append the calls and answer them.
 */
class SimulateAgentTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void agentStepsAlternateToolCallsAndTextAnswers(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("run");
    Cli.Result r = Cli.run("simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--profile", "agent",
        "--turns", "4", "--concurrency", "2", "--duration", "30s", "--warmup", "0s", "--output-tokens", "64",
        "--out", out.toString(), "-q");
    assertThat(r.exitCode()).as(r.both()).isZero();
    JsonNode agent = JSON.readTree(out.resolve("summary.json").toFile()).at("/stages/0/sessions/agent");
    long steps = agent.get("steps").asLong();
    assertThat(steps).isGreaterThan(8);
    // steps 1 and 3 of each loop call a tool, steps 2 and 4 answer its result in text
    assertThat(agent.get("tool_call_share").asDouble()).isBetween(0.4, 0.6);
    assertThat(agent.get("tool_results").asLong()).isGreaterThan(0);
    int calls = 0;
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode q = JSON.readTree(line);
      if (!q.path("ok").asBoolean()) {
        continue;
      }
      boolean odd = q.path("turn").asInt() % 2 == 1;
      assertThat(q.path("finish_reason").asText()).as(line).isEqualTo(odd ? "tool_calls" : "length");
      if (odd) {
        calls++;
        // the arguments are the answer: fewer tokens than max_tokens, counted as output
        assertThat(q.path("output_tokens").asInt()).isBetween(1, 63);
      }
    }
    assertThat(calls).isPositive();
  }

  /**
   * {@code --parallel-tool-calls 3}: every tool step's answer carries 3 calls (requests.jsonl's
   * {@code tool_calls}), their arguments together the output; the step after answers all 3 in text
   * after their results. Without --profile agent, or out of range: one line, exit 2.
   */
  @Test
  void parallelToolCallsInVirtualTime(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("run");
    Cli.Result r = Cli.run("simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--profile", "agent",
        "--turns", "4", "--concurrency", "2", "--duration", "30s", "--warmup", "0s", "--output-tokens", "96",
        "--parallel-tool-calls", "3", "--out", out.toString(), "-q");
    assertThat(r.exitCode()).as(r.both()).isZero();
    int calls = 0;
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode q = JSON.readTree(line);
      if (!q.path("ok").asBoolean()) {
        continue;
      }
      if (q.path("turn").asInt() % 2 == 1) {
        calls++;
        assertThat(q.path("finish_reason").asText()).as(line).isEqualTo("tool_calls");
        assertThat(q.path("tool_calls").asInt()).as(line).isEqualTo(3);
      } else {
        assertThat(q.has("tool_calls")).as(line).isFalse();
      }
    }
    assertThat(calls).isPositive();
    JsonNode agent = JSON.readTree(out.resolve("summary.json").toFile()).at("/stages/0/sessions/agent");
    assertThat(agent.get("tool_results").asLong()).isPositive();

    for (String[] bad : new String[][] {{"--parallel-tool-calls", "3"}, {"--profile", "agent", "--turns", "2",
        "--parallel-tool-calls", "0"}}) {
      java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("simulate", "--concurrency", "1",
          "--requests", "1", "--output-tokens", "8", "--out", dir.resolve("bad").toString()));
      args.addAll(java.util.List.of(bad));
      Cli.Result b = Cli.run(args.toArray(String[]::new));
      assertThat(b.exitCode()).as(b.both()).isEqualTo(2);
      assertThat(b.err().strip().lines().count()).as(b.both()).isEqualTo(1);
      assertThat(b.err()).contains("--parallel-tool-calls");
    }
  }
}
