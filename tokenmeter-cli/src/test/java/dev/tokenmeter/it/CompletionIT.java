package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --profile completion} over real sockets against the embedded server: a request the
 * next keystroke supersedes is cancelled (the client hangs up), the server's ground truth records
 * the client's disconnect and fewer tokens than planned (it stopped generating), cancellations are
 * no errors (exit 0, error rate 0), and summary.json's completion section adds up; {@code
 * --cancel-after} cancels what runs too long; simulate runs the same bursts in virtual time; bad
 * completion flags exit 2 with one line.
 */
@Timeout(120)
class CompletionIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_TOKENS = 40;

  @TempDir Path tmp;

  @Test
  void supersededRequestsAreCancelledAndTheServerStopsGeneratingWithoutAnError() throws Exception {
    Path out = tmp.resolve("run");
    Cli.Result r;
    Map<Long, EmissionRecord> truth = new HashMap<>();
    // Each answer takes about 40 ms + 40 x 5 ms = 240 ms, a keystroke comes every 60 ms: all but a
    // burst's last request are superseded while streaming.
    try (SimFixture sim = SimFixture.start(SimFixture.config(40, 5))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--api", "completions", "--profile", "completion",
          "--concurrency", "3", "--requests", "24", "--warmup", "0s", "--cooldown", "0s", "--burst", "4",
          "--keystroke-time", "60ms", "--think-time", "50ms", "--input-tokens", "300",
          "--output-tokens", Integer.toString(MAX_TOKENS), "--extra-body", "{\"ignore_eos\":true}",
          "--out", out.toString(), "-q");
      sim.awaitAllRecords(10_000);
      for (EmissionRecord e : sim.records()) {
        String id = e.clientRequestId();
        truth.put(Long.parseLong(id.substring(id.lastIndexOf('-') + 1)), e);
      }
    }
    assertThat(r.exitCode()).as(r.both()).isZero();

    int superseded = 0;
    int completed = 0;
    int unseen = 0;
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode n = JSON.readTree(line);
      assertThat(n.has("session") && n.has("turn")).as(line).isTrue();
      EmissionRecord e = truth.get(n.get("id").asLong());
      if (e == null) {
        // Cancelled before the server had read the whole request (a loaded machine): it never
        // generated, and the client saw nothing of it.
        assertThat(n.get("error_class").asText()).as(line).isEqualTo("cancelled");
        assertThat(n.get("chunks").asInt()).as(line).isZero();
        unseen++;
        continue;
      }
      if (n.get("ok").asBoolean()) {
        completed++;
        assertThat(e.ending()).isEqualTo(EmissionRecord.Ending.LENGTH);
        assertThat(e.tokenCount()).isEqualTo(MAX_TOKENS);
        // The server read the text after the cursor too: prompt + suffix.
        assertThat(n.get("usage_prompt_tokens").asInt()).isGreaterThanOrEqualTo(250);
        continue;
      }
      assertThat(n.get("error_class").asText()).as(line).isEqualTo("cancelled");
      if (line.contains("superseded")) {
        superseded++;
        assertThat(n.get("turn").asInt()).as(line).isLessThan(4); // a burst's last request is never superseded
        // The client hung up; the server noticed and stopped: fewer tokens than planned.
        assertThat(e.ending()).as(line).isEqualTo(EmissionRecord.Ending.CLIENT_DISCONNECT);
        assertThat(e.tokenCount()).as(line).isLessThan(MAX_TOKENS);
      }
    }
    assertThat(superseded).isGreaterThanOrEqualTo(10).isGreaterThan(3 * unseen);
    assertThat(completed).isGreaterThanOrEqualTo(3);

    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    assertThat(dev.tokenmeter.report.JsonSchemaSubset.check(
        JSON.readTree(Path.of("docs/summary.schema.json").toFile()), summary)).isEmpty();
    JsonNode stage = summary.at("/stages/0");
    assertThat(stage.at("/requests/failed").asLong()).isZero();
    assertThat(stage.get("errors").size()).as(stage.get("errors").toString()).isZero();
    JsonNode c = stage.get("completion");
    assertThat(c.get("superseded").asLong()).isGreaterThanOrEqualTo(5);
    assertThat(c.get("completed").asLong()).isEqualTo(stage.at("/requests/completed").asLong()).isPositive();
    assertThat(c.get("failed").asLong()).isZero();
    assertThat(c.get("requests_sent").asLong()).isEqualTo(c.get("completed").asLong() + c.get("superseded").asLong()
        + c.get("cancelled_after").asLong() + c.get("failed").asLong() + c.get("cut_at_stage_end").asLong());
    assertThat(c.get("cancelled_share").asDouble()).isBetween(0.4, 0.9);
    assertThat(c.at("/ttft_completed_ms/count").asLong()).isEqualTo(c.get("completed").asLong());
    assertThat(c.at("/ttft_completed_ms/p50").asDouble()).isBetween(30.0, 2000.0);
    assertThat(c.get("server_stops_on_cancel").asText()).isEqualTo("not_known");
    assertThat(summary.at("/settings/workload/profile").asText()).isEqualTo("completion");
  }

  @Test
  void cancelAfterCutsSlowRequestsAndSimulateFreesTheirSlots() throws Exception {
    Path out = tmp.resolve("after");
    Cli.Result r;
    List<EmissionRecord> records;
    // 40 ms + 40 x 5 ms per answer, cancelled after 100 ms; keystrokes 1 s apart never supersede.
    try (SimFixture sim = SimFixture.start(SimFixture.config(40, 5))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--profile", "completion", "--concurrency", "2",
          "--requests", "6", "--warmup", "0s", "--cooldown", "0s", "--burst", "2", "--keystroke-time", "1s",
          "--cancel-after", "100ms", "--input-tokens", "200", "--output-tokens", Integer.toString(MAX_TOKENS),
          "--extra-body", "{\"ignore_eos\":true}", "--out", out.toString(), "-q");
      sim.awaitAllRecords(10_000);
      records = sim.records();
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    JsonNode c = JSON.readTree(out.resolve("summary.json").toFile()).at("/stages/0/completion");
    assertThat(c.get("cancelled_after").asLong()).isEqualTo(6);
    assertThat(c.get("superseded").asLong()).isZero();
    assertThat(c.get("cancelled_share").asDouble()).isEqualTo(1.0);
    assertThat(records).isNotEmpty().allSatisfy(e -> {
      assertThat(e.ending()).isEqualTo(EmissionRecord.Ending.CLIENT_DISCONNECT);
      assertThat(e.tokenCount()).isLessThan(MAX_TOKENS);
    });

    Path sim = tmp.resolve("sim");
    Cli.simulate(sim, new String[] {"--concurrency", "8", "--duration", "20s", "--warmup", "2s", "--cooldown", "0s"},
        "--profile", "completion", "--keystroke-time", "100ms", "--think-time", "1s");
    JsonNode s = JSON.readTree(sim.resolve("summary.json").toFile());
    JsonNode sc = s.at("/stages/0/completion");
    assertThat(sc.get("superseded").asLong()).isPositive();
    assertThat(sc.get("completed").asLong()).isPositive();
    assertThat(sc.get("failed").asLong()).isZero();
    assertThat(sc.get("server_stops_on_cancel").asText()).isEqualTo("stopped");
    assertThat(s.at("/stages/0/requests/failed").asLong()).isZero();
    assertThat(s.at("/stages/0/metrics/input_tokens/mean").asDouble()).isBetween(1024.0, 2100.0);
    assertThat(s.at("/stages/0/metrics/output_tokens/max").asDouble()).isLessThanOrEqualTo(64.0);
  }

  @Test
  void badCompletionFlagsExit2WithOneLine() {
    String[][] cases = {
        {"--profile", "typing"},
        {"--burst", "3"},
        {"--keystroke-time", "100ms"},
        {"--profile", "completion", "--cancel-after", "0s"},
        {"--profile", "completion", "--burst", "uniform:6,2"},
        {"--profile", "completion", "--keystroke-time", "soon"},
        {"--profile", "completion", "--turns", "3"},
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
