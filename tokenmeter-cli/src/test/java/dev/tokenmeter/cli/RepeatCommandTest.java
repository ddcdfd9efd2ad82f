package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.JsonSchemaSubset;
import dev.tokenmeter.testkit.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --repeat N} on simulate (virtual time, deterministic): stage indices, seeds, aggregation. */
class RepeatCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] SIM = {
    "simulate", "--rate", "5,20", "--input-tokens", "uniform:100,1000", "--output-tokens",
    "uniform:10,200", "--duration", "10s", "--warmup", "1s", "--cooldown", "1s", "--seed", "9",
    "--repeat", "3"
  };

  private static JsonNode run(Path out, String... extra) throws Exception {
    String[] args = Arrays.copyOf(SIM, SIM.length + extra.length + 2);
    System.arraycopy(extra, 0, args, SIM.length, extra.length);
    args[args.length - 2] = "--out";
    args[args.length - 1] = out.toString();
    Cli.Result r = Cli.run(args);
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err()).contains("Stage 2/6: rate=5/s poisson").contains(", repeat 2/3 of stage 1");
    assertThat(r.out()).contains("Repeats: each stage 3 times")
        .contains("stage 1  rate=5/s poisson  3 of 3 repeats (runs 1,2,3)")
        .contains("stage 2  rate=20/s poisson  3 of 3 repeats (runs 4,5,6)");
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    JsonNode schema = JSON.readTree(Path.of("docs/summary.schema.json").toFile());
    assertThat(JsonSchemaSubset.check(schema, summary)).isEmpty();
    return summary;
  }

  @Test
  void theSameSeedRepeatsExactlyInVirtualTime(@TempDir Path dir) throws Exception {
    JsonNode s = run(dir);
    JsonNode stages = s.get("stages");
    assertThat(stages).hasSize(6);
    for (int i = 0; i < 6; i++) {
      assertThat(stages.get(i).get("index").asInt()).isEqualTo(i);
      assertThat(stages.get(i).get("seed").asLong()).isEqualTo(9 + i / 3); // seed + planned stage
    }
    JsonNode groups = s.at("/repeats/groups");
    assertThat(s.at("/repeats/count").asInt()).isEqualTo(3);
    assertThat(s.at("/repeats/vary_seed").asBoolean()).isFalse();
    assertThat(groups.get(1).get("stages").toString()).isEqualTo("[3,4,5]");
    JsonNode ttft = groups.get(0).at("/metrics/ttft_p50_ms");
    assertThat(ttft.get("n").asInt()).isEqualTo(3);
    // The engine model is deterministic: the same seed gives the same numbers, no spread at all.
    for (JsonNode g : groups) {
      for (String m : List.of("ttft_p50_ms", "e2e_p99_ms", "output_tokens_per_s", "requests_per_s")) {
        assertThat(g.at("/metrics/" + m + "/std_dev").asDouble()).as(m).isZero();
        assertThat(g.at("/metrics/" + m + "/cv").asDouble()).as(m).isZero();
        assertThat(g.at("/metrics/" + m + "/half_width").asDouble()).as(m).isZero();
      }
    }
    assertThat(groups.get(0).at("/metrics/ttft_p50_ms/mean").asDouble())
        .isEqualTo(stages.get(0).at("/metrics/ttft_ms/p50").asDouble());
    // requests.jsonl: each run has its own stage index.
    Set<Integer> indices =
        Files.readAllLines(dir.resolve("requests.jsonl")).stream()
            .map(l -> readStage(l))
            .collect(Collectors.toSet());
    assertThat(indices).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
  }

  @Test
  void varySeedGivesEachRepeatItsOwnDraws(@TempDir Path dir) throws Exception {
    JsonNode s = run(dir, "--vary-seed", "--confidence", "0.9");
    JsonNode stages = s.get("stages");
    assertThat(stages.get(0).get("seed").asLong()).isEqualTo(9);
    assertThat(stages.get(1).get("seed").asLong()).isEqualTo(9 + 0x9E3779B97F4A7C15L);
    assertThat(stages.get(3).get("seed").asLong()).isEqualTo(10);
    assertThat(s.at("/repeats/vary_seed").asBoolean()).isTrue();
    assertThat(s.at("/repeats/confidence").asDouble()).isEqualTo(0.9);
    JsonNode tps = s.at("/repeats/groups/1/metrics/output_tokens_per_s");
    assertThat(tps.get("cv").asDouble()).isGreaterThan(0);
    // Hand check of the interval from the three stages' own numbers: t(0.95, 2) = 2.919986.
    double[] v = new double[3];
    for (int i = 0; i < 3; i++) {
      v[i] = stages.get(3 + i).at("/throughput/output_tokens_per_s").asDouble();
    }
    double mean = (v[0] + v[1] + v[2]) / 3;
    double sd = Math.sqrt(((v[0] - mean) * (v[0] - mean) + (v[1] - mean) * (v[1] - mean)
        + (v[2] - mean) * (v[2] - mean)) / 2);
    assertThat(tps.get("mean").asDouble()).isCloseTo(mean, org.assertj.core.api.Assertions.within(1e-9));
    assertThat(tps.get("half_width").asDouble())
        .isCloseTo(2.919986 * sd / Math.sqrt(3), org.assertj.core.api.Assertions.within(1e-5 * sd));
  }

  @Test
  void oneRepeatWritesNoRepeatsSectionAndBadValuesAreUsageErrors(@TempDir Path dir) throws Exception {
    Cli.Result r = Cli.run("simulate", "--concurrency", "2", "--output-tokens", "8", "--requests", "4",
        "--warmup", "0s", "--cooldown", "0s", "--out", dir.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).doesNotContain("Repeats");
    assertThat(JSON.readTree(dir.resolve("summary.json").toFile()).has("repeats")).isFalse();

    assertUsage(Cli.run("simulate", "--concurrency", "2", "--repeat", "0"), "--repeat");
    assertUsage(Cli.run("simulate", "--concurrency", "2", "--vary-seed"), "--vary-seed");
    assertUsage(Cli.run("simulate", "--concurrency", "2", "--repeat", "2", "--confidence", "120%"), "--confidence");
    assertUsage(Cli.run("simulate", "--find-max-concurrency", "1..8", "--slo", "ttft.p99<=1s", "--repeat", "2"),
        "--find-max-concurrency");
  }

  private static void assertUsage(Cli.Result r, String mention) {
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err()).as(r.both()).startsWith("tokenmeter: ").contains(mention).doesNotContain("\tat ");
  }

  private static int readStage(String line) {
    try {
      return JSON.readTree(line).get("stage").asInt();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
