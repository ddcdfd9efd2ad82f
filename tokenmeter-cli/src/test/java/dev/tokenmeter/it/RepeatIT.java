package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.JsonSchemaSubset;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench --repeat 3} against the embedded server: three stages, fresh connections each. */
@Timeout(60)
class RepeatIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void eachRepeatOpensItsOwnConnectionsAndTheSummaryAggregatesThem() throws Exception {
    Path out = tmp.resolve("run");
    Cli.Result r;
    long serverConnections;
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 2))) {
      r = Cli.run(
          "bench", "--url", sim.baseUrl(), "--concurrency", "2", "--requests", "4", "--warmup", "0s",
          "--cooldown", "0s", "--input-tokens", "16", "--output-tokens", "4", "--extra-body",
          "{\"ignore_eos\":true}", "--repeat", "3", "--out", out.toString(), "-q");
      serverConnections = sim.server().stats().connectionsOpened();
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err()).contains("Stage 3/3: c=2").contains(", repeat 3/3 of stage 1");
    assertThat(r.out()).containsPattern("TTFT p50 ms +[0-9.]+ ± [0-9.]+ +\\(CV [0-9.]+ %\\)");

    // 2 users: each repeat opens 2 new connections (without the reset, repeats 2 and 3 open none).
    Map<Integer, Integer> newConnections = new TreeMap<>();
    Map<Integer, Integer> requests = new TreeMap<>();
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode j = JSON.readTree(line);
      int stage = j.get("stage").asInt();
      requests.merge(stage, 1, Integer::sum);
      if (j.path("new_connection").asBoolean(false)) {
        newConnections.merge(stage, 1, Integer::sum);
      }
    }
    assertThat(requests).isEqualTo(Map.of(0, 4, 1, 4, 2, 4));
    assertThat(newConnections).isEqualTo(Map.of(0, 2, 1, 2, 2, 2));
    // The server saw them too (plus the pre-flight's own).
    assertThat(serverConnections).isGreaterThanOrEqualTo(6);

    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    JsonNode schema = JSON.readTree(Path.of("docs/summary.schema.json").toFile());
    assertThat(JsonSchemaSubset.check(schema, summary)).isEmpty();
    assertThat(summary.get("stages")).hasSize(3);
    JsonNode group = summary.at("/repeats/groups/0");
    assertThat(group.get("stages").toString()).isEqualTo("[0,1,2]");
    JsonNode tpot = group.at("/metrics/tpot_p50_ms");
    assertThat(tpot.get("n").asInt()).isEqualTo(3);
    double sum = 0;
    for (int i = 0; i < 3; i++) {
      sum += summary.at("/stages/" + i + "/metrics/tpot_ms/p50").asDouble();
    }
    assertThat(tpot.get("mean").asDouble()).isCloseTo(sum / 3, org.assertj.core.api.Assertions.within(1e-9));
    double low = tpot.get("ci_low").asDouble();
    double high = tpot.get("ci_high").asDouble();
    assertThat(low).isLessThanOrEqualTo(tpot.get("mean").asDouble());
    assertThat(high).isGreaterThanOrEqualTo(tpot.get("mean").asDouble());
    assertThat(group.at("/metrics/error_rate/mean").asDouble()).isZero();
    List<Integer> seeds = List.of(summary.at("/stages/0/seed").asInt(), summary.at("/stages/2/seed").asInt());
    assertThat(seeds).containsExactly(42, 42);
  }
}
