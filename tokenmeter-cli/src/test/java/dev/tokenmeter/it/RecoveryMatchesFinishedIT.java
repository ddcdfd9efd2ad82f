package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.report.StagePlanJson;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code report --recover} rebuilds a stage from requests.jsonl: on the same records, its
 * distributions, counts, errors and finish reasons are the finished stage's (docs/RELIABILITY.md,
 * "Crash recovery"). A finished bench run's folder is turned into the one a kill -9 at the stage's
 * very end would have left (summary without the stage, the stage-in-progress file), then recovered.
 */
@Timeout(90)
class RecoveryMatchesFinishedIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The distributions a requests.jsonl line holds (ITL does not: no per-token times there). */
  private static final List<String> RECOVERED = List.of("ttft_ms", "ttft_from_scheduled_ms", "ttfc_ms", "e2e_ms",
      "e2e_from_scheduled_ms", "tpot_ms", "decode_tps", "output_tokens", "input_tokens", "connect_ms");

  @TempDir Path tmp;

  @Test
  void aRecoveredStageHasTheFinishedStagesDistributions() throws Exception {
    Path out = tmp.resolve("run");
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 3))) {
      Cli.Result r = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "4", "--duration", "3s",
          "--warmup", "1s", "--cooldown", "0s", "--input-tokens", "16", "--output-tokens", "uniform:4,24",
          "--out", out.toString(), "-q");
      assertThat(r.exitCode()).as(r.both()).isZero();
    }
    JsonNode finished = JSON.readTree(out.resolve("summary.json").toFile());
    JsonNode stage = finished.at("/stages/0");

    // What the kill would have left: no finished stage, the stage's plan in stage-in-progress.json.
    ObjectNode crashed = finished.deepCopy();
    crashed.putArray("stages");
    crashed.put("partial", true);
    Files.writeString(out.resolve("summary.json"), JSON.writeValueAsString(crashed));
    double firstScheduledMs = Double.MAX_VALUE;
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      firstScheduledMs = Math.min(firstScheduledMs, JSON.readTree(line).get("scheduled_at_ms").asDouble());
    }
    ObjectNode plan = JSON.createObjectNode();
    for (String f : List.of("index", "label", "load", "stop", "warmup_s", "cooldown_s", "seed", "max_requests")) {
      plan.set(f, stage.get(f));
    }
    plan.put("stage_start_ms", firstScheduledMs);
    Files.writeString(out.resolve(StagePlanJson.FILE_NAME), JSON.writeValueAsString(plan));

    Cli.Result rec = Cli.run("report", "--recover", out.toString());
    assertThat(rec.exitCode()).as(rec.both()).isZero();
    JsonNode recovered = JSON.readTree(out.resolve("summary.json").toFile()).at("/stages/0");

    assertThat(recovered.get("requests").get("completed").asLong()).isEqualTo(stage.at("/requests/completed").asLong())
        .isPositive();
    assertThat(recovered.at("/requests/failed").asLong()).isEqualTo(stage.at("/requests/failed").asLong());
    assertThat(recovered.at("/requests/by_phase")).isEqualTo(stage.at("/requests/by_phase"));
    assertThat(recovered.get("errors")).isEqualTo(stage.get("errors"));
    assertThat(recovered.get("finishes")).isEqualTo(stage.get("finishes"));
    assertThat(recovered.at("/tokens/output_sources")).isEqualTo(stage.at("/tokens/output_sources"));
    for (String m : RECOVERED) {
      JsonNode a = stage.at("/metrics/" + m);
      JsonNode b = recovered.at("/metrics/" + m);
      assertThat(b.get("count").asLong()).as(m + " count").isEqualTo(a.get("count").asLong());
      for (String q : List.of("min", "p50", "p90", "p99", "max", "mean")) {
        if (a.get(q).isNull()) {
          assertThat(b.get(q).isNull()).as(m + " " + q).isTrue();
          continue;
        }
        // requests.jsonl keeps times to the microsecond, the histograms 3 significant digits.
        double expected = a.get(q).asDouble();
        assertThat(b.get(q).asDouble()).as(m + " " + q).isCloseTo(expected, within(0.002 * Math.abs(expected) + 0.002));
      }
    }
  }
}
