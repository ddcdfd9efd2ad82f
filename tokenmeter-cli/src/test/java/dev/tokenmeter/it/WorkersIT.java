package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.HistogramCodec;
import dev.tokenmeter.report.JsonSchemaSubset;
import dev.tokenmeter.testkit.CliProcess;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --workers 2} as real processes (the coordinator a child JVM, its workers children of
 * it) against the simulator on 127.0.0.1: the start barrier (both workers' runs start at the agreed
 * instant), shard correctness (an open loop's every arrival sent once: the run-wide ids are exactly
 * 0..n-1, arrival k by worker k mod 2), the exact merge (the merged histogram is the sum of the
 * workers' and counts every measured record of requests.jsonl), and a worker killed mid-run (the
 * run goes on, is partial with that worker's share named, exit code 1).
 */
@Timeout(300)
class WorkersIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final JsonNode SCHEMA = schema();

  @TempDir Path tmp;

  private static JsonNode schema() {
    try {
      return JSON.readTree(Path.of("docs/summary.schema.json").toFile());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void twoWorkersStartTogetherShareTheArrivalsAndMergeExactly() throws Exception {
    Path out = tmp.resolve("two");
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 5));
        CliProcess p = CliProcess.start("bench", "--url", sim.baseUrl(), "--rate", "20", "--arrival", "constant",
            "--duration", "3s", "--warmup", "0s", "--cooldown", "0s", "--input-tokens", "16", "--output-tokens", "8",
            "--extra-body", "{\"ignore_eos\":true}", "--workers", "2", "--out", out.toString(), "-q")) {
      assertThat(p.waitFor(Duration.ofSeconds(200))).as("stderr: %s", p.err()).isZero();
    }
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    assertThat(summary.get("partial").asBoolean()).isFalse();
    assertThat(JsonSchemaSubset.check(SCHEMA, summary)).isEmpty();
    JsonNode workers = summary.get("workers");
    assertThat(workers).hasSize(2);
    List<JsonNode> parts = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      JsonNode w = workers.get(i);
      assertThat(w.get("state").asText()).isEqualTo("finished");
      assertThat(Math.abs(w.get("clock_offset_ms").asDouble())).as("one machine, one clock").isLessThan(50);
      parts.add(JSON.readTree(out.resolve("workers/worker-" + i + "/summary.json").toFile()));
    }
    Instant a = Instant.parse(parts.get(0).get("started_at").asText());
    Instant b = Instant.parse(parts.get(1).get("started_at").asText());
    assertThat(Duration.between(a, b).abs().toMillis()).as("the start barrier (loaded machine)").isLessThan(250);

    // Shard correctness: 20/s constant over [0, 3 s) is arrivals 0..59, each sent once, by worker id mod 2.
    List<JsonNode> lines = new ArrayList<>();
    for (String l : Files.readAllLines(out.resolve("requests.jsonl"), StandardCharsets.UTF_8)) {
      lines.add(JSON.readTree(l));
    }
    assertThat(lines).extracting(l -> l.get("id").asLong()).containsExactlyInAnyOrderElementsOf(
        LongStream.range(0, 60).boxed().toList());
    for (JsonNode l : lines) {
      int worker = workers.get(0).get("part").asInt() == l.get("part").asInt() ? 0 : 1;
      assertThat(l.get("id").asLong() % 2).as("arrival %s", l.get("id")).isEqualTo(worker);
    }

    // Exact merge: the merged histogram is the workers' summed, and it holds every measured record.
    Histogram sum = null;
    for (JsonNode part : parts) {
      Histogram h = HistogramCodec.decode(part.at("/stages/0/histograms/ttft/data").asText());
      if (sum == null) {
        sum = h.copy();
      } else {
        sum.add(h);
      }
    }
    Histogram merged = HistogramCodec.decode(summary.at("/stages/0/histograms/ttft/data").asText());
    assertThat(merged).isEqualTo(sum);
    List<Double> ttfts = lines.stream()
        .filter(l -> l.get("ok").asBoolean() && l.get("phase").asText().equals("measured"))
        .map(l -> l.get("ttft_ms").asDouble()).sorted().toList();
    assertThat(merged.getTotalCount()).isEqualTo(ttfts.size()).isEqualTo(60);
    Histogram fromRecords = new Histogram(merged.getNumberOfSignificantValueDigits());
    ttfts.forEach(ms -> fromRecords.recordValue(Math.round(ms * 1e6)));
    for (double q : new double[] {50, 90, 99, 100}) {
      assertThat(merged.getValueAtPercentile(q) / 1e6).as("TTFT p%s", q)
          .isCloseTo(fromRecords.getValueAtPercentile(q) / 1e6, org.assertj.core.data.Percentage.withPercentage(0.2));
    }
    assertThat(summary.at("/stages/0/metrics/ttft_ms/count").asLong()).isEqualTo(60);
  }

  @Test
  void sessionsOfTwoWorkersAreMergedExactly() throws Exception {
    Path out = tmp.resolve("sessions");
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 5));
        CliProcess p = CliProcess.start("bench", "--url", sim.baseUrl(), "--concurrency", "4", "--turns", "3",
            "--duration", "3s", "--warmup", "0s", "--cooldown", "0s", "--input-tokens", "16", "--output-tokens", "8",
            "--extra-body", "{\"ignore_eos\":true}", "--workers", "2", "--out", out.toString(), "-q")) {
      assertThat(p.waitFor(Duration.ofSeconds(200))).as("stderr: %s", p.err()).isZero();
    }
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    assertThat(JsonSchemaSubset.check(SCHEMA, summary)).isEmpty();
    JsonNode merged = summary.at("/stages/0/sessions");
    assertThat(merged.isObject()).as("the merged stage has its sessions").isTrue();
    long started = 0;
    long firstTurns = 0;
    Histogram turns = null;
    for (int i = 0; i < 2; i++) {
      JsonNode part = JSON.readTree(out.resolve("workers/worker-" + i + "/summary.json").toFile()).at("/stages/0/sessions");
      started += part.get("started").asLong();
      firstTurns += part.at("/by_turn/0/requests").asLong();
      Histogram h = HistogramCodec.decode(part.at("/histograms/turns/data").asText());
      if (turns == null) {
        turns = h.copy();
      } else {
        turns.add(h);
      }
    }
    assertThat(started).isPositive();
    assertThat(merged.get("started").asLong()).isEqualTo(started);
    assertThat(merged.at("/by_turn/0/requests").asLong()).isEqualTo(firstTurns);
    assertThat(HistogramCodec.decode(merged.at("/histograms/turns/data").asText())).isEqualTo(turns);
    assertThat(merged.get("in_words").asText()).isNotEmpty();
  }

  @Test
  void aKilledWorkerLeavesAPartialRunThatNamesItsShare() throws Exception {
    Path out = tmp.resolve("killed");
    int code;
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 5));
        CliProcess p = CliProcess.start("bench", "--url", sim.baseUrl(), "--concurrency", "4",
            "--duration", "8s", "--warmup", "0s", "--cooldown", "0s", "--input-tokens", "16", "--output-tokens", "8",
            "--extra-body", "{\"ignore_eos\":true}", "--workers", "2", "--out", out.toString(), "-q")) {
      Path log = out.resolve("workers/worker-1/requests.jsonl");
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (!(Files.isRegularFile(log) && Files.size(log) > 0) && System.nanoTime() < deadline) {
        Thread.sleep(100); // worker 1 is running and streaming
      }
      assertThat(log).as("worker 1 streamed; stderr: %s", p.err()).isNotEmptyFile();
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("worker 1 of 2 \\(pid (\\d+)\\)")
          .matcher(Files.readString(out.resolve("workers/worker-1/worker.log"), StandardCharsets.UTF_8));
      assertThat(m.find()).as("worker 1's pid in its log").isTrue();
      ProcessHandle worker = ProcessHandle.of(Long.parseLong(m.group(1))).orElseThrow();
      assertThat(worker.parent().map(ProcessHandle::pid)).as("a child of the coordinator").contains(p.pid());
      worker.destroyForcibly();
      code = p.waitFor(Duration.ofSeconds(120));
      assertThat(p.err()).contains("worker 1 lost");
    }
    assertThat(code).as("a lost worker fails the run").isEqualTo(1);
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    assertThat(summary.get("partial").asBoolean()).isTrue();
    assertThat(summary.get("partial_reason").asText()).isEqualTo("worker_lost");
    assertThat(JsonSchemaSubset.check(SCHEMA, summary)).isEmpty();
    assertThat(summary.get("partial_detail").asText()).contains("worker 1 (c=2 of c=4) lost");
    assertThat(summary.at("/workers/1/state").asText()).isEqualTo("lost");
    assertThat(summary.at("/workers/0/state").asText()).isEqualTo("finished");
    assertThat(summary.at("/stages/0/requests/completed").asLong()).as("worker 0's share").isPositive();
    assertThat(summary.get("merged_from")).hasSize(1);
  }
}
