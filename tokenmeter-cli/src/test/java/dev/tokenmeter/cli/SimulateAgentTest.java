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
}
