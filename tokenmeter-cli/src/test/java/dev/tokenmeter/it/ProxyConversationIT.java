package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.ledger.WorkloadRow;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conversations through the proxy over real sockets, on a SQLite ledger: each request's
 * conversation key (a configured header, OpenAI's {@code user}, Anthropic's {@code
 * metadata.user_id}) is recorded; {@code proxy export-workload} writes the conversations' turn
 * counts, think times and the cached share by turn that sim serve's prefix cache reported.
 */
@Timeout(120)
class ProxyConversationIT {
  private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SYSTEM = "You are a careful assistant. ".repeat(60);
  private static final long THINK_MILLIS = 120;

  @TempDir Path dir;

  @Test
  void conversationKeysAreRecordedAndExportedAsTurnsThinkTimesAndCachedShares() throws Exception {
    Path ledger = dir.resolve("ledger.db");
    try (SimFixture sim = SimFixture.start(SimFixture.config(2, 1))) {
      CompletableFuture<String> url = new CompletableFuture<>();
      CompletableFuture<Cli.Result> result = new CompletableFuture<>();
      Thread proxy = new Thread(() -> result.complete(Cli.run(line -> {
        Matcher m = LISTENING.matcher(line);
        if (m.find()) {
          url.complete(m.group(1));
        }
      }, "proxy", "--listen", "127.0.0.1:0", "--upstream", sim.baseUrl(), "--ledger", ledger.toString(),
          "--conversation-header", "X-Session-Id")));
      proxy.start();
      String base = url.get(20, TimeUnit.SECONDS);

      conversation(base, "chat", 4, null, "X-Session-Id: sess-a"); // the header wins over the body's user
      conversation(base, "chat", 3, "user-b");
      conversation(base, "anthropic", 2, "user-c");
      assertThat(RawHttp.post(base, "/v1/chat/completions", chat(List.of("hello"), null).toString()).status())
          .isEqualTo(200);

      proxy.interrupt();
      Cli.Result done = result.get(20, TimeUnit.SECONDS);
      assertThat(done.exitCode()).as(done.both()).isZero();
    }

    Map<String, List<WorkloadRow>> byKey = new HashMap<>();
    List<WorkloadRow> unkeyed = new ArrayList<>();
    Ledgers.openExisting(ledger.toString(), Map.of()).workload(Instant.EPOCH, r -> {
      if (r.conversation() == null) {
        unkeyed.add(r);
      } else {
        byKey.computeIfAbsent(r.conversation(), k -> new ArrayList<>()).add(r);
      }
    });
    assertThat(byKey).containsOnlyKeys("sess-a", "user-b", "user-c");
    assertThat(byKey.get("sess-a")).hasSize(4);
    assertThat(byKey.get("user-b")).hasSize(3);
    assertThat(byKey.get("user-c")).hasSize(2);
    assertThat(unkeyed).hasSize(1);
    assertThat(byKey.get("sess-a").getFirst().cachedTokens()).as("the first request of all").isZero();
    for (List<WorkloadRow> turns : byKey.values()) {
      // a later conversation's first turn finds the shared system prompt, not its own question
      assertThat(turns.getFirst().cachedTokens()).isLessThan(turns.getFirst().inputTokens() - 40);
      for (int k = 1; k < turns.size(); k++) {
        assertThat(turns.get(k).cachedTokens()).as("turn %d of %s", k + 1, turns.get(k).conversation())
            .isGreaterThan(turns.get(k - 1).inputTokens() / 2);
        assertThat(turns.get(k).startedAtEpochMillis() - turns.get(k - 1).endedAtEpochMillis())
            .isGreaterThanOrEqualTo(THINK_MILLIS - 5); // the ledger's end is the proxy's, a little after the client's read
      }
    }

    Path profile = dir.resolve("profile.json");
    Cli.Result export = Cli.run("proxy", "export-workload", "--ledger", ledger.toString(), "--since", "1h",
        "--out", profile.toString());
    assertThat(export.exitCode()).as(export.both()).isZero();
    JsonNode c = JSON.readTree(profile.toFile()).path("conversations");
    assertThat(c.path("count").asInt()).isEqualTo(3);
    assertThat(c.path("keyed_share").asDouble()).isEqualTo(9 / 10.0);
    JsonNode turns = c.path("turns").path("quantiles");
    assertThat(turns).hasSize(101);
    assertThat(turns.get(0).asInt()).isEqualTo(2);
    assertThat(turns.get(50).asInt()).isEqualTo(3);
    assertThat(turns.get(100).asInt()).isEqualTo(4);
    JsonNode think = c.path("think_time_ms").path("quantiles");
    assertThat(think).hasSize(101);
    assertThat(think.get(0).asInt()).isGreaterThanOrEqualTo((int) THINK_MILLIS - 5);
    assertThat(think.get(100).asInt()).isLessThan(5_000);
    JsonNode byTurn = c.path("cached_share_by_turn");
    assertThat(byTurn).hasSize(9);
    assertThat(byTurn.get(0).path("turn").asText()).isEqualTo("1");
    double first = byTurn.get(0).path("cached_share").asDouble();
    assertThat(first).isBetween(0.1, 0.9); // the system prompt, shared by the later conversations
    assertThat(byTurn.get(1).path("cached_share").asDouble()).isBetween(first, 1.0);
    assertThat(byTurn.get(3).path("cached_share").asDouble()).isBetween(0.5, 1.0);
    assertThat(byTurn.get(4).path("cached_share").isNull()).isTrue();
    assertThat(byTurn.get(8).path("turn").asText()).isEqualTo("later");
  }

  /** {@code turns} requests of one conversation, each resending the history, {@link #THINK_MILLIS} apart. */
  private static void conversation(String base, String api, int turns, String user, String... headers)
      throws Exception {
    List<String> history = new ArrayList<>();
    for (int t = 1; t <= turns; t++) {
      history.add(("Question " + t + " of " + (user == null ? "the session" : user) + " about the next step. ").repeat(6));
      ObjectNode body = api.equals("chat") ? chat(history, user == null ? "user-x" : user) : anthropic(history, user);
      RawHttp.Response r = RawHttp.post(base, api.equals("chat") ? "/v1/chat/completions" : "/v1/messages",
          body.toString(), headers);
      assertThat(r.status()).as(r.text()).isEqualTo(200);
      history.add(("Answer " + t + " covers it. ").repeat(6));
      Thread.sleep(THINK_MILLIS);
    }
  }

  private static ObjectNode chat(List<String> history, String user) {
    ObjectNode body = JSON.createObjectNode().put("model", "tokenmeter-sim").put("max_tokens", 8)
        .put("stream", true);
    if (user != null) {
      body.put("user", user);
    }
    ArrayNode messages = body.putArray("messages");
    messages.addObject().put("role", "system").put("content", SYSTEM);
    for (int i = 0; i < history.size(); i++) {
      messages.addObject().put("role", i % 2 == 0 ? "user" : "assistant").put("content", history.get(i));
    }
    return body;
  }

  private static ObjectNode anthropic(List<String> history, String user) {
    ObjectNode body = JSON.createObjectNode().put("model", "tokenmeter-sim").put("max_tokens", 8)
        .put("stream", true).put("system", SYSTEM);
    body.putObject("metadata").put("user_id", user);
    ArrayNode messages = body.putArray("messages");
    for (int i = 0; i < history.size(); i++) {
      messages.addObject().put("role", i % 2 == 0 ? "user" : "assistant").put("content", history.get(i));
    }
    return body;
  }
}
