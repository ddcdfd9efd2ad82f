package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --trace} over real sockets against the embedded server, and {@code simulate --trace}:
 * every record is sent once, at its timestamp; the server counts each prompt at the record's length
 * and generates its output length; records that share hash ids get the shared blocks from the
 * server's prefix cache.
 */
@Timeout(180)
class TraceReplayIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int BLOCK = 64;
  private static final int RECORDS = 24;

  @TempDir Path tmp;

  /**
   * Record i at 80 ms × i: blocks [0 (everyone's), 100 + i / 3 (a group of three), unique ones],
   * then a partial block; so record i shares 2 blocks with the record before it in its group, which
   * was sent 80 ms earlier and whose prefill (20 ms) has filled the cache.
   */
  private Path trace() throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      int whole = 2 + i % 3;
      List<Long> ids = new ArrayList<>(List.of(0L, 100L + i / 3));
      for (int b = 2; b < whole; b++) {
        ids.add(10_000L + i * 10L + b);
      }
      int input = whole * BLOCK + 1 + (i * 7) % (BLOCK - 1);
      ids.add(20_000L + i); // the partial last block, its own
      lines.add(String.format(Locale.ROOT, "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d,"
          + " \"hash_ids\": %s}", i * 80, input, 3 + i % 5, ids));
    }
    Path f = tmp.resolve("trace.jsonl");
    Files.write(f, lines);
    return f;
  }

  @Test
  void everyRecordIsSentOnceOnTimeAtItsLengthAndSharedBlocksAreCached() throws Exception {
    Path trace = trace();
    List<JsonNode> records = new ArrayList<>();
    for (String l : Files.readAllLines(trace)) {
      records.add(JSON.readTree(l));
    }
    Path out = tmp.resolve("bench");
    Cli.Result r;
    // The server counts and caches with the tokenizer the client sizes prompts with, as a real one would.
    var o200k = dev.tokenmeter.tokenizer.Tokenizer.openAi("o200k_base");
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 2)
        .promptCounter(dev.tokenmeter.simulator.PromptCounter.tokenizer("o200k_base", o200k::encode)))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--api", "completions", "--trace", trace.toString(),
          "--tokenizer", "o200k_base", "--trace-block-tokens", String.valueOf(BLOCK), "--extra-body",
          "{\"ignore_eos\":true}", "--out",
          out.toString(), "-q");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    Map<Integer, JsonNode> byId = new HashMap<>();
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode n = JSON.readTree(line);
      assertThat(byId.put(n.get("id").asInt(), n)).as("request %s twice", n.get("id")).isNull();
    }
    assertThat(byId.keySet()).hasSize(RECORDS);
    double start = byId.get(0).get("scheduled_at_ms").asDouble();
    for (int i = 0; i < RECORDS; i++) {
      JsonNode n = byId.get(i);
      JsonNode rec = records.get(i);
      assertThat(n.get("ok").asBoolean()).as(n.toString()).isTrue();
      // Scheduled at the record's timestamp exactly, sent near it (a loaded 2-core machine: generous).
      assertThat(n.get("scheduled_at_ms").asDouble() - start).isCloseTo(rec.get("timestamp").asDouble(),
          org.assertj.core.data.Offset.offset(0.01));
      assertThat(n.get("sent_at_ms").asDouble() - n.get("scheduled_at_ms").asDouble()).isBetween(0.0, 1000.0);
      // The server's own count: the record's length exactly (no chat framing on completions).
      assertThat(n.get("usage_prompt_tokens").asInt()).as("record %d", i).isEqualTo(rec.get("input_length").asInt());
      assertThat(n.get("max_tokens").asInt()).isEqualTo(rec.get("output_length").asInt());
      assertThat(n.get("output_tokens").asInt()).isEqualTo(rec.get("output_length").asInt());
      int cached = n.get("usage_cached_tokens").asInt();
      if (i % 3 != 0) {
        // Two shared 64-token blocks (block 0 and the group's) were cached by the group's previous record.
        assertThat(cached).as("record %d cached", i).isGreaterThanOrEqualTo(2 * BLOCK - 16);
      } else if (i > 0) {
        // Only block 0 is shared with earlier records.
        assertThat(cached).as("record %d cached", i).isBetween(BLOCK - 16, 2 * BLOCK - 1);
      }
    }
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    JsonNode w = summary.path("settings").path("workload");
    assertThat(w.path("trace_format").asText()).isEqualTo("mooncake");
    assertThat(w.path("trace_requests").asInt()).isEqualTo(RECORDS);
    JsonNode stage = summary.path("stages").get(0);
    assertThat(stage.path("load").path("arrivals").asText()).isEqualTo("trace");
    assertThat(stage.path("client_health").path("send_lag_ms").path("p99").isNumber()).isTrue();
  }

  /**
   * {@code --trace-warmup}: the server gets the warm-up's requests (16 output tokens each; the
   * trace's ask for 3 to 7), all ended before the trace's first arrives; requests.jsonl holds the
   * trace's records only, and record 0 is scheduled at the trace clock's start, after the warm-up.
   */
  @Test
  void theWarmUpEndsBeforeTheTracesClockStartsAndIsNotRecorded() throws Exception {
    Path out = tmp.resolve("warm");
    Cli.Result r;
    List<dev.tokenmeter.simulator.EmissionRecord> seen;
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 2))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--api", "completions", "--trace", trace().toString(),
          "--trace-block-tokens", String.valueOf(BLOCK), "--trace-warmup", "1s", "--extra-body", "{\"ignore_eos\":true}",
          "--out", out.toString(), "-q");
      sim.awaitAllRecords(5_000);
      seen = sim.records();
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err()).contains("warm-up:").contains("warm-up done:");
    JsonNode w = JSON.readTree(out.resolve("summary.json").toFile()).path("settings").path("workload");
    assertThat(w.path("trace_warmup").asText()).isEqualTo("1s");
    long warmups = w.path("trace_warmup_requests").asLong();
    // 24 records over 1.84 s: the busiest second holds 13 (0, 80, ..., 960 ms).
    assertThat(w.path("trace_warmup_connections").asInt()).isEqualTo(13);
    assertThat(warmups).isGreaterThanOrEqualTo(13);
    assertThat(w.path("trace_warmup_failed").asLong()).isZero();
    List<dev.tokenmeter.simulator.EmissionRecord> warm =
        seen.stream().filter(e -> e.request().maxTokens() == 16).toList();
    List<dev.tokenmeter.simulator.EmissionRecord> replayed =
        seen.stream().filter(e -> e.request().maxTokens() != 16).toList();
    assertThat(warm).hasSize((int) warmups);
    assertThat(replayed).hasSize(RECORDS);
    long lastWarm = warm.stream().mapToLong(e -> e.actualNanos()[e.actualNanos().length - 1]).max().orElseThrow();
    long firstReplayed = replayed.stream().mapToLong(e -> e.request().arrivalNanos()).min().orElseThrow();
    assertThat(lastWarm).isLessThan(firstReplayed);
    List<String> lines = Files.readAllLines(out.resolve("requests.jsonl"));
    assertThat(lines).hasSize(RECORDS);
    double warmMs = w.path("trace_warmup_elapsed_ms").asDouble();
    for (String line : lines) {
      JsonNode n = JSON.readTree(line);
      assertThat(n.get("max_tokens").asInt()).isLessThan(16);
      if (n.get("id").asInt() == 0) {
        // The trace's clock starts after the warm-up (the run's clock started before it) ...
        assertThat(n.get("scheduled_at_ms").asDouble()).isGreaterThanOrEqualTo(warmMs);
        // ... and the first record is sent at its offset (0) from it.
        assertThat(n.get("sent_at_ms").asDouble() - n.get("scheduled_at_ms").asDouble()).isBetween(0.0, 1000.0);
      }
    }
  }

  @Test
  void traceStagesCutTheReplayIntoWindows() throws Exception {
    Path out = tmp.resolve("stages");
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 2))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--api", "completions", "--trace", trace().toString(),
          "--trace-block-tokens", String.valueOf(BLOCK), "--trace-stages", "800ms", "--trace-speed", "2",
          "--out", out.toString(), "-q");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    JsonNode stages = JSON.readTree(out.resolve("summary.json").toFile()).path("stages");
    // 24 records over 1.84 s of trace time in 800 ms windows: 10, 10, 4 records; each 400 ms at 2x.
    assertThat(stages).hasSize(3);
    long sent = Files.readAllLines(out.resolve("requests.jsonl")).size();
    assertThat(sent).isEqualTo(RECORDS);
  }

  @Test
  void simulateReplaysTheTraceInVirtualTimeWithItsSharing() throws Exception {
    Path out = tmp.resolve("sim");
    Cli.Result r = Cli.run("simulate", "--trace", trace().toString(), "--trace-block-tokens", String.valueOf(BLOCK),
        "--out", out.toString(), "-q");
    assertThat(r.exitCode()).as(r.both()).isZero();
    int n = 0;
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode q = JSON.readTree(line);
      int i = q.get("id").asInt();
      assertThat(q.get("scheduled_at_ms").asDouble()).isEqualTo(i * 80.0);
      if (i % 3 != 0) {
        assertThat(q.get("usage_cached_tokens").asInt()).as("record %d", i).isGreaterThanOrEqualTo(2 * BLOCK - 16);
      }
      n++;
    }
    assertThat(n).isEqualTo(RECORDS);
  }

  @Test
  void badTracesAreOneLineAndExit2() throws Exception {
    Path bad = tmp.resolve("bad.jsonl");
    Files.writeString(bad, "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 5}\n"
        + "{\"timestamp\": 1, \"input_length\": 10, \"output_length\": 5}\n");
    Cli.Result r = Cli.run("simulate", "--trace", bad.toString(), "-q");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err().strip()).contains("bad.jsonl:2:").contains("sort the trace").doesNotContain("\n");
    Cli.Result both = Cli.run("simulate", "--trace", trace().toString(), "--rate", "2", "-q");
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err()).contains("--trace is the schedule");
  }
}
