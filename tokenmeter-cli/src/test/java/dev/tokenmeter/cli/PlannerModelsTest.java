package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code simulate} runs every 2026 preset on a deployment that holds it, and config.json models. */
class PlannerModelsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode simulate(Path dir, String... deployment) throws Exception {
    String[] common = {"simulate", "-q", "--concurrency", "1,8", "--input-tokens", "200",
        "--output-tokens", "32", "--duration", "6s", "--warmup", "1s", "--seed", "3", "--out",
        dir.toString()};
    String[] args = new String[common.length + deployment.length];
    System.arraycopy(common, 0, args, 0, common.length);
    System.arraycopy(deployment, 0, args, common.length, deployment.length);
    Cli.Result r = Cli.run(args);
    assertThat(r.exitCode()).as(r.both()).isZero();
    return JSON.readTree(dir.resolve("summary.json").toFile());
  }

  @ParameterizedTest
  @CsvSource({
    "deepseek-v3, h200, 8, ''",
    "deepseek-r1, b200, 8, ''",
    "gpt-oss-120b, h100-sxm, 1, ''",
    "gpt-oss-20b, rtx-pro-6000, 1, ''",
    "qwen3-235b-a22b, mi355x, 4, ''",
    "qwen3-30b-a3b, h20, 1, ''",
    "qwen3-32b, b300, 1, fp8",
    "llama-4-scout, gb200, 2, ''",
    "llama-4-maverick, mi325x, 8, ''",
    "gemma-3-27b, b200, 1, fp4",
  })
  void everyNewPresetSimulates(String model, String gpu, int gpus, String precision,
      @TempDir Path dir) throws Exception {
    JsonNode s = precision.isEmpty()
        ? simulate(dir, "--model", model, "--gpu", gpu, "--gpus", Integer.toString(gpus))
        : simulate(dir, "--model", model, "--gpu", gpu, "--gpus", Integer.toString(gpus),
            "--precision", precision);
    double one = s.at("/stages/0/metrics/itl_ms/mean").asDouble();
    double eight = s.at("/stages/1/metrics/itl_ms/mean").asDouble();
    assertThat(one).as(model).isPositive();
    assertThat(eight).as(model).isGreaterThanOrEqualTo(one);
    assertThat(s.at("/target/url").asText()).startsWith("simulate:" + model + "@" + gpus + "x" + gpu);
  }

  @Test
  void aConfigJsonModelSimulatesLikeItsPreset(@TempDir Path dir) throws Exception {
    JsonNode file = simulate(dir.resolve("file"), "--model-file",
        "tokenmeter-cli/src/test/resources/hf/deepseek-v3.json", "--gpu", "h200", "--gpus", "8");
    JsonNode preset = simulate(dir.resolve("preset"), "--model", "deepseek-v3", "--gpu", "h200",
        "--gpus", "8");
    // FP8 by its quantization_config, as the preset: the same engine, the same timings
    assertThat(file.at("/target/url").asText()).isEqualTo("simulate:deepseek-v3@8xh200:fp8");
    assertThat(file.at("/stages/1/metrics/itl_ms/mean").asDouble())
        .isEqualTo(preset.at("/stages/1/metrics/itl_ms/mean").asDouble());
    assertThat(file.at("/settings/simulation/kv_cache_tokens").asLong())
        .isEqualTo(preset.at("/settings/simulation/kv_cache_tokens").asLong());
  }

  @Test
  void multiTokenPredictionShortensTheTimePerOutputToken(@TempDir Path dir) throws Exception {
    JsonNode plain = simulate(dir.resolve("plain"), "--model", "deepseek-r1", "--gpu", "h200",
        "--gpus", "8");
    JsonNode mtp = simulate(dir.resolve("mtp"), "--model", "deepseek-r1", "--gpu", "h200",
        "--gpus", "8", "--speculative", "mtp", "--spec-tokens", "1", "--acceptance", "0.85");
    double before = plain.at("/stages/1/metrics/tpot_ms/mean").asDouble();
    double after = mtp.at("/stages/1/metrics/tpot_ms/mean").asDouble();
    // 1.85 tokens per step for a longer step (the verify pass's 16 tokens touch 102.0 of 256
    // experts per layer where 8 touch 57.4): 7.62 -> 6.14 ms, under the plain TPOT, above half
    assertThat(after).isLessThan(before * 0.9).isGreaterThan(before / 1.85);
    Cli.Result r = Cli.run("simulate", "--model", "deepseek-r1", "--gpu", "h200", "--gpus", "8",
        "--speculative", "mtp", "--concurrency", "1", "--duration", "1s");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("needs --spec-tokens K and --acceptance R");
    r = Cli.run("simulate", "--speculative", "medusa", "--spec-tokens", "2", "--acceptance", "0.5",
        "--concurrency", "1", "--duration", "1s");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--speculative must be mtp, eagle or draft");
  }

  @Test
  void anUnmappedArchitectureIsAUsageError() {
    Cli.Result r = Cli.run("simulate", "--model-file", "tokenmeter-cli/src/test/resources/hf/mamba-2.8b",
        "--concurrency", "1", "--duration", "1s");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("MambaForCausalLM").contains("supported model types")
        .doesNotContain("Exception");
  }
}
