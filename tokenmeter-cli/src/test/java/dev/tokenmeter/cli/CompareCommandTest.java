package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.simulator.engine.Roofline;
import dev.tokenmeter.testkit.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tokenmeter compare} on simulate runs that differ by a known amount, or not at all. */
class CompareCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void withRepeatsTheRunsAreTheUnit(@TempDir Path dir) throws Exception {
    // 3 repeats per side with varied seeds: one pooled sample per planned stage, each repeat a unit.
    String[] plan = {"--concurrency", "4", "--input-tokens", "uniform:50,150", "--output-tokens", "uniform:16,48",
        "--duration", "6s", "--warmup", "1s", "--cooldown", "0s", "--repeat", "3", "--vary-seed"};
    Cli.simulate(dir.resolve("h100"), plan, "--gpu", "h100-sxm");
    Cli.simulate(dir.resolve("a100"), plan, "--gpu", "a100-80gb");
    Cli.Result r = Cli.run("compare", dir.resolve("h100").toString(), dir.resolve("a100").toString(),
        "--json", dir.resolve("cmp.json").toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).contains("p-values rest on 3 runs per side");
    JsonNode stages = JSON.readTree(dir.resolve("cmp.json").toFile()).at("/comparisons/0/stages");
    assertThat(stages).hasSize(1); // the 3 repeats of c=4 pooled, not 3 separate comparisons
    JsonNode tpot = row(stages.get(0), "tpot_p50");
    assertThat(tpot.get("method").asText()).isEqualTo("welch");
    assertThat(tpot.get("basis").asText()).isEqualTo("3 runs per side");
    assertThat(tpot.get("verdict").asText()).isEqualTo("worse"); // the A100 is slower in every run
  }

  @Test
  void aSlowerGpuIsSlowerByTheRooflineRatio(@TempDir Path dir) throws Exception {
    // c=1: every token is one decode iteration of one sequence, memory-bound, so TPOT is the
    // roofline's iteration time; an A100 80GB reads weights at 2,039 GB/s against the H100's 3,350.
    String[] plan = {"--concurrency", "1", "--input-tokens", "100", "--output-tokens", "32",
        "--duration", "20s", "--warmup", "1s", "--cooldown", "0s", "--seed", "3"};
    Cli.simulate(dir.resolve("h100"), plan, "--gpu", "h100-sxm");
    Cli.simulate(dir.resolve("a100"), plan, "--gpu", "a100-80gb");
    // 1.33 with the fitted defaults: the 5.08 ms fixed part of each step is the same on both GPUs
    double expected = tpotNanos("a100-80gb") / tpotNanos("h100-sxm");

    Cli.Result r = Cli.run("compare", dir.resolve("h100").toString(), dir.resolve("a100").toString(),
        "--markdown", dir.resolve("cmp.md").toString(), "--json", dir.resolve("cmp.json").toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(line(r.out(), "TPOT p50")).contains("B slower, significant (p<0.001)");
    assertThat(line(r.out(), "TTFT p50")).contains("B slower, significant (p<0.001)");
    assertThat(line(r.out(), "decode TPS/user p50")).contains("B slower, significant (p<0.001)");
    assertThat(line(r.out(), "TPOT p99")).contains("n/a: too few requests for a p99 test");

    JsonNode cmp = JSON.readTree(dir.resolve("cmp.json").toFile());
    JsonNode stage = cmp.at("/comparisons/0/stages/0");
    assertThat(stage.get("label").asText()).isEqualTo("c=1");
    JsonNode tpot = row(stage, "tpot_p50");
    assertThat(tpot.get("verdict").asText()).isEqualTo("worse");
    assertThat(tpot.get("run").asDouble() / tpot.get("baseline").asDouble()).isCloseTo(expected, within(0.01));
    assertThat(tpot.get("ci_low").asDouble()).isPositive();
    assertThat(row(stage, "output_tps").get("change_percent").asDouble())
        .isCloseTo(100 * (1 / expected - 1), within(3.0)); // TTFT (prefill) dilutes it a little
    assertThat(stage.at("/curves/baseline/time_series/output_tokens").size()).isBetween(21, 22); // 1 + 20 s
    assertThat(stage.at("/curves/run/percentiles/tpot_ms")).hasSize(11);
    assertThat(cmp.at("/runs/1/target_url").asText()).isEqualTo("simulate:llama-3.1-8b@1xa100-80gb");

    // What the p-values rest on: 20 s of one-second blocks (E2E well under a second at c=1).
    assertThat(r.out()).contains("p-values rest on 20 one-second blocks per side");
    assertThat(tpot.get("method").asText()).isEqualTo("welch");
    assertThat(tpot.get("basis").asText()).isEqualTo("20 one-second blocks per side");

    String md = Files.readString(dir.resolve("cmp.md"));
    assertThat(md).contains("p-values rest on 20 one-second blocks per side");
    assertThat(md).startsWith("## tokenmeter compare")
        .contains("| metric | A | B | change | 95% CI of change | verdict |")
        .contains(String.format(java.util.Locale.ROOT, "(+%.1f%%) |", tpot.get("change_percent").asDouble()))
        .containsPattern("\\| TPOT p50 \\(ms\\) \\| [0-9.]+ \\| [0-9.]+ \\| \\+[0-9.]+ \\(\\+[0-9.]+%\\) \\|");
  }

  @Test
  void theSameDeploymentTwiceShowsNoDifference(@TempDir Path dir) throws Exception {
    String[] plan = {"--concurrency", "8", "--input-tokens", "uniform:50,500", "--output-tokens", "uniform:20,120",
        "--duration", "20s", "--warmup", "2s", "--cooldown", "1s"};
    Cli.simulate(dir.resolve("a"), plan, "--seed", "1");
    Cli.simulate(dir.resolve("b"), plan, "--seed", "2");
    Cli.Result r = Cli.run("compare", dir.resolve("a").toString(), dir.resolve("b").toString(),
        "--json", dir.resolve("cmp.json").toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).doesNotContain("B slower").doesNotContain("B faster")
        .contains("no significant difference").contains("Holm-adjusted");
    JsonNode rows = JSON.readTree(dir.resolve("cmp.json").toFile()).at("/comparisons/0/stages/0/rows");
    assertThat(rows).hasSize(13);
    for (JsonNode row : rows) {
      assertThat(row.get("verdict").asText()).as(row.get("key").asText()).isNotIn("better", "worse");
    }
    // Identical runs: every Mann-Whitney p-value is 1.
    Cli.Result same = Cli.run("compare", dir.resolve("a").toString(), dir.resolve("a").toString());
    assertThat(line(same.out(), "TTFT p50")).contains("no significant difference (p=1.0)");
  }

  @Test
  void differentSweepsCompareWhatTheyShare(@TempDir Path dir) {
    Cli.simulate(dir.resolve("a"), new String[] {"--concurrency", "1,4", "--output-tokens", "16", "--duration", "3s",
        "--warmup", "0s", "--cooldown", "0s"});
    Cli.simulate(dir.resolve("b"), new String[] {"--concurrency", "4", "--output-tokens", "16", "--duration", "3s",
        "--warmup", "0s", "--cooldown", "0s"});
    Cli.Result r = Cli.run("compare", dir.resolve("a").toString(), dir.resolve("b").toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).contains("Stage c=4 (A #1, B #0)").contains("The stage plans differ")
        .contains("only in A (not compared): #0 c=1").doesNotContain("Stage c=1");
  }

  @Test
  void usageErrorsExitWith2(@TempDir Path dir) {
    Cli.Result missing = Cli.run("compare", dir.resolve("x").toString(), dir.resolve("y").toString());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("is not a results folder").doesNotContain("Exception");
    assertThat(Cli.run("compare", dir.toString()).exitCode()).isEqualTo(2);
    Cli.Result alpha = Cli.run("compare", dir.toString(), dir.toString(), "--alpha", "2");
    assertThat(alpha.exitCode()).isEqualTo(2);
    assertThat(alpha.err()).contains("alpha must lie between 0 and 1");
    Cli.Result empty = Cli.run("compare", dir.toString(), dir.toString());
    assertThat(empty.err()).contains("no summary.json");
  }

  private static double tpotNanos(String gpu) {
    Roofline r = new Roofline(EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu(gpu)));
    int context = 100 + 16; // mid-way through a 32-token answer
    return r.iterationNanos(1, context, context, 1);
  }

  private static String line(String text, String start) {
    return text.lines().filter(l -> l.strip().startsWith(start + " ")).findFirst().orElseThrow();
  }

  private static JsonNode row(JsonNode stage, String key) {
    for (JsonNode r : stage.get("rows")) {
      if (r.get("key").asText().equals(key)) {
        return r;
      }
    }
    throw new AssertionError("no row " + key);
  }
}
