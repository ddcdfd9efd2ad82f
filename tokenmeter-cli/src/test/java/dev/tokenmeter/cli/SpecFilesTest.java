package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.simulator.SpecFiles;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.testkit.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --model-file} and {@code --gpu-file}: a copied preset reads back equal; bad files are one-line usage errors. */
class SpecFilesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Entry {@code index} of {@code sim presets --json}'s {@code list}, as the user would copy it. */
  private static ObjectNode preset(String list, int index) throws Exception {
    Cli.Result r = Cli.run("sim", "presets", "--json");
    assertThat(r.exitCode()).isZero();
    return (ObjectNode) JSON.readTree(r.out()).get(list).get(index).deepCopy();
  }

  private static Path write(Path dir, String name, JsonNode node) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node));
    return f;
  }

  @Test
  void everyCopiedPresetReadsBackEqualToIt(@TempDir Path dir) throws Exception {
    for (int i = 0; i < Presets.models().size(); i++) {
      Path f = write(dir, "m" + i + ".json", preset("models", i));
      assertThat(SpecFiles.readModel(f)).isEqualTo(Presets.models().get(i));
    }
    for (int i = 0; i < Presets.gpus().size(); i++) {
      Path f = write(dir, "g" + i + ".json", preset("gpus", i));
      assertThat(SpecFiles.readGpu(f)).isEqualTo(Presets.gpus().get(i));
    }
  }

  @Test
  void aFileEqualToThePresetSimulatesIdentically(@TempDir Path dir) throws Exception {
    Path model = write(dir, "model.json", preset("models", 0)); // llama-3.1-8b
    Path gpu = write(dir, "gpu.json", preset("gpus", 2)); // h100-sxm
    String[] load = {"--concurrency", "8", "--input-tokens", "uniform:100,900", "--output-tokens", "32",
        "--duration", "5s", "--warmup", "1s", "--cooldown", "0s", "--seed", "4", "--out"};
    JsonNode byPreset = stages(dir.resolve("preset"), "--model", "llama-3.1-8b", "--gpu", "h100-sxm", load);
    JsonNode byFile = stages(dir.resolve("file"), "--model-file", model.toString(), "--gpu-file", gpu.toString(), load);
    assertThat(byPreset.at("/0/requests/completed").asLong()).isGreaterThan(50);
    assertThat(byFile).isEqualTo(byPreset);
  }

  @Test
  void aGpuFilesOwnAchievableShareSetsItsComputeRate(@TempDir Path dir) throws Exception {
    ObjectNode mine = preset("gpus", 2); // h100-sxm's figures, under an id the table does not know
    mine.put("id", "my-h100");
    mine.put("achievable_bf16_share", 0.5);
    Path gpu = write(dir, "gpu.json", mine);
    assertThat(SpecFiles.readGpu(gpu).achievableBf16Share()).isEqualTo(0.5);
    // A cold 1,100-token prompt, compute-bound: (2 × 7,504,924,672 × 1,100 + 524,288 × 1,100 ×
    // 1,101 / 2) FLOPs / (989.4e12 × 0.5 × MFU 0.725) = 46.920298 ms, + 348 ns sampling + 32 × 40
    // µs eager launches + vLLM's 2.0 ms + 10 µs = 50.211 ms (histograms keep 3 significant digits)
    JsonNode s = stages(dir.resolve("own"), "--model", "llama-3.1-8b", "--gpu-file", gpu.toString(),
        "--concurrency", "1", "--input-tokens", "1100", "--output-tokens", "4", "--no-prefix-caching",
        "--duration", "5s", "--warmup", "0s", "--cooldown", "0s", "--seed", "3", "--out");
    assertThat(s.at("/0/metrics/ttft_ms/p50").asDouble()).isCloseTo(50.211, within(0.06));

    mine.put("achievable_bf16_share", 1.5);
    Cli.Result r = Cli.run("simulate", "--gpu-file", write(dir, "bad.json", mine).toString(), "--concurrency", "1");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("achievable_bf16_share must be a share in (0, 1]");
  }

  private static JsonNode stages(Path out, String k1, String v1, String k2, String v2, String... load)
      throws Exception {
    String[] args = new String[load.length + 6];
    args[0] = "simulate";
    args[1] = k1;
    args[2] = v1;
    args[3] = k2;
    args[4] = v2;
    System.arraycopy(load, 0, args, 5, load.length);
    args[args.length - 1] = out.toString();
    Cli.Result r = Cli.run(args);
    assertThat(r.exitCode()).as(r.both()).isZero();
    return JSON.readTree(out.resolve("summary.json").toFile()).get("stages");
  }

  /** Runs simulate with this model file and returns stderr, expecting exit 2 and one line. */
  private static String modelError(Path dir, ObjectNode model) throws Exception {
    Path f = write(dir, "bad.json", model);
    Cli.Result r = Cli.run("simulate", "--model-file", f.toString(), "--concurrency", "1");
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err().strip().lines().count()).as(r.err()).isEqualTo(1);
    return r.err();
  }

  @Test
  void badModelFilesAreOneLineUsageErrors(@TempDir Path dir) throws Exception {
    ObjectNode missing = preset("models", 0);
    missing.remove("num_key_value_heads");
    assertThat(modelError(dir, missing)).contains("missing field num_key_value_heads").contains("presets --json");

    ObjectNode negative = preset("models", 0);
    negative.put("num_hidden_layers", -3);
    assertThat(modelError(dir, negative)).contains("num_hidden_layers must be a whole number >= 1, got -3");

    ObjectNode groups = preset("models", 0);
    groups.put("num_key_value_heads", 5);
    groups.remove("kv_bytes_per_token_bf16");
    assertThat(modelError(dir, groups)).contains("num_attention_heads (32) is not a multiple of num_key_value_heads (5)");

    ObjectNode typo = preset("models", 0);
    typo.put("num_layers", 32);
    assertThat(modelError(dir, typo)).contains("unknown field 'num_layers'");

    ObjectNode stale = preset("models", 0);
    stale.put("num_hidden_layers", 16);
    assertThat(modelError(dir, stale)).contains("kv_bytes_per_token_bf16 is derived").contains("65536");

    // Llama 3.1 8B's shape with 70 B parameters: 140 GB of BF16 weights. Per GPU, 80 GiB × 0.9 −
    // 3 GiB = 74.1 GB leaves room for a KV block only from 2 GPUs on (70 GB each).
    ObjectNode big = preset("models", 0);
    big.put("total_params", 70_000_000_000L);
    big.put("active_params", 70_000_000_000L);
    assertThat(modelError(dir, big)).contains("does not fit on 1 x h100-sxm").contains("needs at least 2 GPUs (--gpus 2)");
  }

  @Test
  void badGpuFilesAndConflictingFlagsAreUsageErrors(@TempDir Path dir) throws Exception {
    ObjectNode gpu = preset("gpus", 2);
    gpu.put("memory_bandwidth_bytes_per_second", -1);
    Path f = write(dir, "gpu.json", gpu);
    Cli.Result r = Cli.run("simulate", "--gpu-file", f.toString(), "--concurrency", "1");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("memory_bandwidth_bytes_per_second must be a number >= 0");

    Path whole = dir.resolve("all.json");
    Files.writeString(whole, Cli.run("sim", "presets", "--json").out());
    Cli.Result list = Cli.run("demo", "--gpu-file", whole.toString());
    assertThat(list.exitCode()).isEqualTo(2);
    assertThat(list.err()).contains("holds the whole presets list");

    Cli.Result both = Cli.run("sim", "serve", "--port", "0", "--gpu", "h100-sxm", "--gpu-file", f.toString());
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err()).contains("--gpu or --gpu-file, not both");

    Cli.Result absent = Cli.run("simulate", "--model-file", dir.resolve("nope.json").toString(), "--concurrency", "1");
    assertThat(absent.exitCode()).isEqualTo(2);
    assertThat(absent.err()).contains("cannot read it");
  }
}
