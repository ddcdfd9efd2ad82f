package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --turns} over real sockets against the embedded server: every session's prompt
 * grows by at least the answer it got (the server's own count, {@code usage.prompt_tokens}), the
 * session and turn of each request are in requests.jsonl, the by-turn figures and session counts in
 * summary.json, a turn-range SLO in the JUnit file; bad session flags exit 2 with one line.
 */
@Timeout(120)
class SessionsIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void eachTurnSendsTheHistoryWithTheServersAnswersAndTheSummaryReportsByTurn() throws Exception {
    Path out = tmp.resolve("run");
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 2))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "3", "--requests", "24", "--warmup", "0s",
          "--cooldown", "0s", "--turns", "4", "--think-time", "uniform:5ms,20ms", "--input-tokens", "40",
          "--output-tokens", "12", "--shared-prefix-tokens", "30", "--extra-body", "{\"ignore_eos\":true}",
          "--slo", "ttft.p99[turn>=2]<=10s,ttft.p99[turn=1]<=10s", "--junit", out.resolve("junit.xml").toString(),
          "--out", out.toString(), "-q");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();

    Map<Long, List<JsonNode>> sessions = new TreeMap<>();
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode n = JSON.readTree(line);
      assertThat(n.has("session") && n.has("turn")).as(line).isTrue();
      if (!n.get("ok").asBoolean()) {
        // The stage's end cancels what is in flight then (a turn planned just before it): no failure.
        assertThat(n.get("error_class").asText()).as(line).isEqualTo("cancelled");
        continue;
      }
      sessions.computeIfAbsent(n.get("session").asLong(), k -> new ArrayList<>()).add(n);
    }
    assertThat(sessions).hasSizeGreaterThanOrEqualTo(6);
    int pairs = 0;
    for (List<JsonNode> turns : sessions.values()) {
      turns.sort(Comparator.comparingInt(n -> n.get("turn").asInt()));
      for (int k = 0; k < turns.size(); k++) {
        JsonNode t = turns.get(k);
        assertThat(t.get("turn").asInt()).isEqualTo(k + 1);
        assertThat(t.get("ok").asBoolean()).as(t.toString()).isTrue();
        // sim serve reports what its prefix cache served: a share of the prompt, and from turn 2 on
        // at least the shared system prompt's whole blocks and most of the resent history.
        assertThat(t.has("usage_cached_tokens")).as(t.toString()).isTrue();
        assertThat(t.get("usage_cached_tokens").asInt()).isBetween(0, t.get("usage_prompt_tokens").asInt());
        if (k > 0) {
          assertThat(t.get("usage_cached_tokens").asInt())
              .as("session %s turn %d", t.get("session"), k + 1)
              .isGreaterThanOrEqualTo(turns.get(k - 1).get("usage_prompt_tokens").asInt() / 2);
        }
        if (k > 0) {
          JsonNode prev = turns.get(k - 1);
          // The server saw the whole history: the last prompt, the answer it gave, a new message.
          assertThat(t.get("usage_prompt_tokens").asInt())
              .as("session %s turn %d", t.get("session"), k + 1)
              .isGreaterThanOrEqualTo(prev.get("usage_prompt_tokens").asInt() + prev.get("usage_completion_tokens").asInt());
          assertThat(t.get("client_prompt_tokens").asInt())
              .isGreaterThanOrEqualTo(prev.get("client_prompt_tokens").asInt() + prev.get("output_tokens").asInt());
          pairs++;
        }
      }
    }
    assertThat(pairs).isGreaterThanOrEqualTo(12);

    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    assertThat(dev.tokenmeter.report.JsonSchemaSubset.check(
        JSON.readTree(Path.of("docs/summary.schema.json").toFile()), summary)).isEmpty();
    JsonNode s = summary.at("/stages/0/sessions");
    assertThat(s.get("started").asLong()).isGreaterThanOrEqualTo(sessions.size());
    assertThat(s.get("finished").asLong()).isGreaterThanOrEqualTo(3);
    assertThat(s.get("ended_by_error").asLong()).isZero();
    assertThat(s.get("started").asLong()).isEqualTo(s.get("finished").asLong() + s.get("in_progress_at_end").asLong());
    assertThat(s.at("/turns/max").asDouble()).isEqualTo(4.0);
    JsonNode byTurn = s.get("by_turn");
    assertThat(byTurn).hasSize(4);
    for (int k = 0; k < 4; k++) {
      assertThat(byTurn.get(k).get("turn").asText()).isEqualTo(Integer.toString(k + 1));
      assertThat(byTurn.get(k).at("/ttft_ms/count").asLong()).isPositive();
      if (k > 0) {
        assertThat(byTurn.get(k).at("/prompt_tokens/mean").asDouble())
            .isGreaterThan(byTurn.get(k - 1).at("/prompt_tokens/mean").asDouble() + 12);
      }
    }
    assertThat(s.get("in_words").asText()).startsWith("TTFT p50 ").contains("at turn 1 to ").contains("at turn 4");
    assertThat(Files.readString(out.resolve("junit.xml"))).contains("ttft.p99[turn&gt;=2]");
  }

  @Test
  void aShareGptFileIsReplayedTurnByTurnAndOneWithoutConversationsExits2() throws Exception {
    Path data = tmp.resolve("chats.json");
    Files.writeString(data, """
        [{"conversations": [{"from": "human", "value": "What is prefix caching?"}, {"from": "gpt", "value": "r"},
                            {"from": "human", "value": "Why does it help TTFT?"}, {"from": "gpt", "value": "r"},
                            {"from": "human", "value": "And the KV cache?"}]}]
        """);
    Path out = tmp.resolve("replay");
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 1))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "1", "--requests", "6", "--warmup", "0s",
          "--cooldown", "0s", "--turns", "10", "--prompts", data.toString(), "--output-tokens", "6",
          "--extra-body", "{\"ignore_eos\":true}", "--out", out.toString(), "-q");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      lines.add(JSON.readTree(line));
    }
    // Two sessions of the conversation's three user turns.
    assertThat(lines).extracting(n -> n.get("session").asInt() + ":" + n.get("turn").asInt())
        .containsExactly("0:1", "0:2", "0:3", "1:1", "1:2", "1:3");
    for (int k = 1; k < 3; k++) {
      assertThat(lines.get(k).get("usage_prompt_tokens").asInt())
          .isGreaterThanOrEqualTo(lines.get(k - 1).get("usage_prompt_tokens").asInt() + 6);
    }

    Path single = tmp.resolve("single.jsonl");
    Files.writeString(single, "{\"prompt\": \"hi\"}\n");
    Cli.Result bad = Cli.run("bench", "--url", "http://127.0.0.1:9", "--concurrency", "1", "--requests", "1",
        "--turns", "3", "--prompts", single.toString(), "--out", tmp.resolve("bad").toString());
    assertThat(bad.exitCode()).as(bad.both()).isEqualTo(2);
    assertThat(bad.err().strip()).endsWith("holds no conversation of 2 or more user turns (ShareGPT \"conversations\" or"
        + " OpenAI \"messages\") to replay with --turns: give a multi-turn dataset, or leave out --turns");
  }

  @Test
  void simulateRunsTheSameConversationsInVirtualTimeAndTheirHistoriesHitThePrefixCache() throws Exception {
    Path out = tmp.resolve("sim");
    Cli.simulate(out, new String[] {"--concurrency", "4", "--duration", "30s", "--warmup", "2s", "--cooldown", "0s",
        "--input-tokens", "300", "--output-tokens", "50"}, "--turns", "5", "--think-time", "1s",
        "--price-in", "1", "--price-out", "2");
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    JsonNode byTurn = summary.at("/stages/0/sessions/by_turn");
    assertThat(byTurn).hasSize(5);
    for (int k = 1; k < 5; k++) {
      assertThat(byTurn.get(k).at("/prompt_tokens/mean").asDouble())
          .isGreaterThanOrEqualTo(byTurn.get(k - 1).at("/prompt_tokens/mean").asDouble() + 300 + 50 - 1);
    }
    // Each later turn resends the earlier prompt, whose blocks the engine cached: most prompt tokens hit.
    assertThat(summary.at("/settings/simulation/prefix_cache_hit_rate").asDouble()).isGreaterThan(0.4);
    // The engine reports each request's cached prompt tokens, so the cached share by turn is known:
    // none of turn 1's (no shared prefix); of a later turn's, about the previous turn's prompt in
    // whole 16-token blocks (the answer was generated, not prefilled: vLLM caches prompt blocks only).
    assertThat(byTurn.get(0).get("cached_share").asDouble()).isLessThan(0.1);
    for (int k = 1; k < 5; k++) {
      double previous = byTurn.get(k - 1).at("/prompt_tokens/mean").asDouble();
      double prompt = byTurn.get(k).at("/prompt_tokens/mean").asDouble();
      assertThat(byTurn.get(k).get("cached_share").asDouble())
          .as("turn %d", k + 1)
          .isBetween(0.9 * (previous - 16) / prompt, 1.0);
    }
    assertThat(summary.at("/stages/0/sessions/finished").asLong()).isPositive();
    // A conversation costs what its sessions carried: mean prompt and output tokens per session.
    JsonNode s = summary.at("/stages/0/sessions");
    double perConversation = (s.at("/input_tokens/mean").asDouble() * 1 + s.at("/output_tokens/mean").asDouble() * 2) / 1e6;
    assertThat(summary.at("/stages/0/cost/tokens/per_conversation").asDouble())
        .isCloseTo(perConversation, org.assertj.core.data.Percentage.withPercentage(0.5))
        .isGreaterThan(5 * summary.at("/stages/0/cost/tokens/per_request").asDouble() * 0.5);
  }

  @Test
  void badSessionFlagsExit2WithOneLine() {
    String[][] cases = {
        {"--turns", "uniform:5,2"},
        {"--turns", "3", "--think-time", "uniform:1s"},
        {"--think-time", "exponential:2s"},
        {"--max-context", "4000"},
        {"--turns", "3", "--max-context", "-1"},
        {"--turns", "3", "--think-time", "soon"},
    };
    for (String[] c : cases) {
      List<String> args = new ArrayList<>(List.of("bench", "--url", "http://127.0.0.1:9", "--concurrency", "1",
          "--requests", "1", "--out", tmp.resolve("bad").toString()));
      args.addAll(List.of(c));
      Cli.Result r = Cli.run(args.toArray(String[]::new));
      assertThat(r.exitCode()).as(String.join(" ", c) + "\n" + r.both()).isEqualTo(2);
      assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
      assertThat(r.err()).doesNotContain("Exception");
    }
  }
}
