package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.simulator.PromptCounter;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.tokenizer.Tokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The capture round trip over real sockets: conversations through the proxy (SQLite ledger) →
 * {@code proxy export-trace} → {@code bench --trace} against a fresh {@code sim serve}. The trace
 * has the traffic's arrivals, its lengths as the server counted them, its sessions and turns, and
 * block ids that each turn shares with the one before; the replay sends the same arrivals at the
 * same lengths, and the server's prefix cache finds about what it found in production.
 *
 * <p>Tolerances, on a loaded 2-core machine: an arrival in the trace within 25 ms of the client's
 * send (the proxy stamps its receipt in whole milliseconds); a replayed send within 60 ms of the
 * original (that, plus bench's schedule lag); a replayed turn's cached tokens within two blocks and
 * a 16-token cache block of production's (block boundaries fall where the window's average
 * characters per token put them, not at each prompt's own).
 */
@Timeout(240)
class ProxyTraceIT {
  private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SYSTEM = "You are a careful assistant who answers in short sentences. ".repeat(30);
  private static final int CONVERSATIONS = 3;
  private static final int TURNS = 4;

  @TempDir Path dir;

  /** One request the test sent: when, in which conversation, and what the server said of it. */
  private record Sent(long atNanos, int conversation, int turn, int promptTokens, int outputTokens, int cached) {}

  private static SimFixture sim() {
    Tokenizer o200k = Tokenizer.openAi("o200k_base");
    return SimFixture.start(SimFixture.config(15, 1).promptCounter(PromptCounter.tokenizer("o200k_base", o200k::encode)));
  }

  @Test
  void proxyTrafficExportedAndReplayedHasTheSameArrivalsLengthsSessionsAndSharing() throws Exception {
    Path ledger = dir.resolve("ledger.db");
    List<Sent> sent;
    try (SimFixture sim = sim()) {
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
      sent = traffic(url.get(20, TimeUnit.SECONDS));
      proxy.interrupt();
      Cli.Result done = result.get(20, TimeUnit.SECONDS);
      assertThat(done.exitCode()).as(done.both()).isZero();
    }

    Path trace = dir.resolve("trace.jsonl");
    Cli.Result export = Cli.run("proxy", "export-trace", "--ledger", ledger.toString(), "--since", "1h",
        "--out", trace.toString());
    assertThat(export.exitCode()).as(export.both()).isZero();
    assertThat(export.out()).contains("wrote " + trace + ": " + sent.size() + " requests").contains("in 3 sessions");
    List<JsonNode> records = new ArrayList<>();
    for (String line : Files.readAllLines(trace)) {
      records.add(JSON.readTree(line));
    }
    assertThat(records).hasSize(sent.size());
    int block = records.get(0).path("block_tokens").asInt();
    assertThat(block).as("256 characters of English at 3.5-6 characters a token").isBetween(40, 75);

    // Times from the second request: the first warmed the client, the proxy and the server up (its
    // receipt is stamped up to a second after the client's send on a cold JVM).
    long t0 = sent.get(1).atNanos();
    double at0 = records.get(1).path("at_ms").asDouble();
    Map<Integer, String> sessionOf = new HashMap<>();
    Map<Integer, JsonNode> previousTurn = new HashMap<>();
    for (int i = 0; i < sent.size(); i++) {
      Sent s = sent.get(i);
      JsonNode r = records.get(i);
      if (i > 0) {
        assertThat(r.path("at_ms").asDouble() - at0).as("record %d's arrival", i)
            .isCloseTo((s.atNanos() - t0) / 1e6, org.assertj.core.data.Offset.offset(25.0));
      }
      assertThat(r.path("input_tokens").asInt()).as("record %d", i).isEqualTo(s.promptTokens());
      assertThat(r.path("output_tokens").asInt()).as("record %d", i).isEqualTo(s.outputTokens());
      assertThat(r.path("block_tokens").asInt()).isEqualTo(block);
      if (s.conversation() < 0) {
        assertThat(r.has("session")).isFalse();
        continue;
      }
      String session = sessionOf.computeIfAbsent(s.conversation(), c -> r.path("session").asText());
      assertThat(r.path("session").asText()).isEqualTo(session).startsWith("s");
      assertThat(r.path("turn").asInt()).isEqualTo(s.turn());
      JsonNode before = previousTurn.put(s.conversation(), r);
      if (before != null) {
        // every whole block of the previous turn's prompt is a block of this one
        assertThat(common(before, r)).as("record %d shares with turn %d", i, s.turn() - 1)
            .isGreaterThanOrEqualTo(before.path("hash_ids").size() - 1);
      }
    }
    assertThat(sessionOf.values()).doesNotHaveDuplicates().hasSize(CONVERSATIONS);
    // first turns of different conversations share the system prompt's blocks, not their questions
    int systemBlocks = common(records.get(0), records.get(1));
    assertThat(systemBlocks).isGreaterThanOrEqualTo(5).isLessThan(records.get(0).path("hash_ids").size());

    Path out = dir.resolve("replay");
    Cli.Result replay;
    try (SimFixture sim = sim()) {
      replay = Cli.run("bench", "--url", sim.baseUrl(), "--api", "completions", "--trace", trace.toString(),
          "--tokenizer", "o200k_base", "--extra-body", "{\"ignore_eos\":true}", "--out", out.toString(), "-q");
    }
    assertThat(replay.exitCode()).as(replay.both()).isZero();
    List<JsonNode> replayed = new ArrayList<>();
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      replayed.add(JSON.readTree(line));
    }
    replayed.sort(Comparator.comparingInt(n -> n.get("id").asInt()));
    assertThat(replayed).hasSize(sent.size());
    double firstSent = replayed.get(1).get("sent_at_ms").asDouble();
    for (int i = 0; i < sent.size(); i++) {
      JsonNode q = replayed.get(i);
      Sent s = sent.get(i);
      assertThat(q.get("ok").asBoolean()).as(q.toString()).isTrue();
      if (i > 0) {
        assertThat(q.get("sent_at_ms").asDouble() - firstSent).as("replayed send %d", i)
            .isCloseTo((s.atNanos() - t0) / 1e6, org.assertj.core.data.Offset.offset(60.0));
      }
      assertThat(q.get("usage_prompt_tokens").asInt()).as("replayed prompt %d", i).isEqualTo(s.promptTokens());
      assertThat(q.get("output_tokens").asInt()).as("replayed output %d", i).isEqualTo(s.outputTokens());
      System.err.printf("round trip %d: sent %.1f ms, trace %.1f ms, replay %.1f ms; cached %d, replay %d%n", i,
          (s.atNanos() - t0) / 1e6, records.get(i).path("at_ms").asDouble() - at0,
          q.get("sent_at_ms").asDouble() - firstSent, s.cached(), q.get("usage_cached_tokens").asInt());
      if (s.conversation() >= 0 && s.turn() > 1) {
        assertThat(q.get("usage_cached_tokens").asInt()).as("replayed cache of record %d (production: %d)", i,
            s.cached()).isCloseTo(s.cached(), org.assertj.core.data.Offset.offset(2 * block + 16));
      }
    }
  }

  /** Hash ids two records share from their start. */
  private static int common(JsonNode a, JsonNode b) {
    JsonNode x = a.path("hash_ids");
    JsonNode y = b.path("hash_ids");
    int n = 0;
    while (n < Math.min(x.size(), y.size()) && x.get(n).asLong() == y.get(n).asLong()) {
      n++;
    }
    return n;
  }

  /**
   * A request of no conversation that warms everything up, then, from when it has ended,
   * conversation c's turn t at (t - 1) × 450 ms + c × 150 ms, each resending its history with the
   * server's answers, and another request of no conversation; sent in that order by one thread, each
   * when its time comes.
   */
  private static List<Sent> traffic(String base) throws Exception {
    List<long[]> plan = new ArrayList<>(); // {at ms, conversation, turn}
    plan.add(new long[] {0, -1, 0}); // the warm-up
    for (int t = 1; t <= TURNS; t++) {
      for (int c = 0; c < CONVERSATIONS; c++) {
        plan.add(new long[] {40 + (t - 1) * 450L + c * 150L, c, t});
      }
    }
    plan.add(new long[] {40 + TURNS * 450L, -1, 0});
    Map<Integer, List<String>> history = new HashMap<>();
    List<Sent> sent = new ArrayList<>();
    long start = System.nanoTime();
    boolean warm = false;
    for (long[] p : plan) {
      long due = start + p[0] * 1_000_000L;
      while (System.nanoTime() < due) {
        LockSupport.parkNanos(due - System.nanoTime());
      }
      int c = (int) p[1];
      int t = (int) p[2];
      List<String> turns = history.computeIfAbsent(c, k -> new ArrayList<>());
      turns.add(("Question " + t + " of conversation " + c + ": what comes next in the plan? ").repeat(4 + c));
      ObjectNode body = JSON.createObjectNode().put("model", "tokenmeter-sim").put("max_tokens", 4 + sent.size() % 6)
          .put("ignore_eos", true);
      ArrayNode messages = body.putArray("messages");
      messages.addObject().put("role", "system").put("content", SYSTEM);
      for (int i = 0; i < turns.size(); i++) {
        messages.addObject().put("role", i % 2 == 0 ? "user" : "assistant").put("content", turns.get(i));
      }
      long at = System.nanoTime();
      RawHttp.Response r = c < 0 ? RawHttp.post(base, "/v1/chat/completions", body.toString())
          : RawHttp.post(base, "/v1/chat/completions", body.toString(), "X-Session-Id: conversation-" + c);
      assertThat(r.status()).as(r.text()).isEqualTo(200);
      JsonNode answer = JSON.readTree(r.text());
      turns.add(answer.path("choices").get(0).path("message").path("content").asText());
      JsonNode usage = answer.path("usage");
      sent.add(new Sent(at, c, t, usage.path("prompt_tokens").asInt(), usage.path("completion_tokens").asInt(),
          usage.path("prompt_tokens_details").path("cached_tokens").asInt()));
      if (c < 0) {
        history.remove(c);
      }
      if (!warm) {
        warm = true;
        start = System.nanoTime(); // the schedule starts once the warm-up request has ended
      }
    }
    return sent;
  }
}
