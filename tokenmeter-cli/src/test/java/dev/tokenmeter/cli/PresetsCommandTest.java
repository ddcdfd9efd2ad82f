package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.simulator.engine.GpuSpec;
import dev.tokenmeter.simulator.engine.ModelSpec;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.testkit.Cli;
import org.junit.jupiter.api.Test;

class PresetsCommandTest {

  @Test
  void tablesListEveryPresetWithItsFigures() {
    Cli.Result r = Cli.run("sim", "presets");
    assertThat(r.exitCode()).isZero();
    for (ModelSpec m : Presets.models()) {
      assertThat(r.out()).contains(m.id()).contains(m.name());
    }
    for (GpuSpec g : Presets.gpus()) {
      assertThat(r.out()).contains(g.id());
    }
    assertThat(r.out())
        .containsPattern("llama-3.1-8b .* 8\\.03B +8\\.03B +32 +4096 +8 +128 +131072 +128 KiB")
        .containsPattern("mixtral-8x7b .* 46\\.70B +12\\.88B")
        .containsPattern("h100-sxm .* 80 GiB +3\\.350 +989\\.4 +1978\\.9")
        .containsPattern("h100-sxm .* 1978\\.9 +- +0\\.803/0\\.709  NVLink")
        .containsPattern("a100-80gb .* 624\\.0 +- +0\\.869  NVLink")
        .containsPattern("b200 .* 180 GiB +8\\.000 +2250\\.0 +4500\\.0 +4500\\.0 +9000\\.0 +0\\.803/0\\.740  NVLink 5")
        .containsPattern("deepseek-v3 .* 671\\.03B +37\\.55B .* 69 KiB fp8 +MLA 512\\+64, 1\\+256 experts \\(8 per token\\), 3 dense layers")
        .containsPattern("gpt-oss-120b .* mxfp4 .*18 layers windowed to 128, experts only quantized")
        .contains("    qwen3-32b        https://huggingface.co/Qwen/Qwen3-32B/blob/main/config.json")
        .contains("    mi355x       AMD Instinct MI355X data sheet")
        .containsPattern("vllm +vLLM V1 \\(0\\.8\\+\\) +mixed +on_demand +1024/256 +8192/2048 +512 +16 +2ms +0\\.0075ms")
        .containsPattern("sglang .* prefill_first +on_demand .* 160 +16 +2\\.9ms +0\\.135ms")
        .containsPattern("trt-llm .* mixed +reserve_full +2048/2048 +8192/8192 +2048 +16 +5\\.5ms +0\\.015ms")
        .containsPattern("lmdeploy +LMDeploy TurboMind \\(0\\.1, persistent batch\\) +mixed +on_demand +64/64"
            + " +262144/262144 +0 +128 +1\\.6ms +0\\.0525ms")
        .contains("platform cuda adds 0ms per iteration + 0ms per sequence (NVIDIA GPUs: the profiles' own)")
        .contains("platform rocm adds 3.7ms per iteration + 0.0925ms per sequence (AMD Instinct GPUs, fitted)")
        .contains("--mfu 0.725  --mbu 0.88")
        .contains("held out by source (median |error|, docs/SIMULATOR.md Accuracy): TPOT/ITL 8.1% (p90"
            + " 37.9%)")
        .contains("    vllm on ROCm: rocm-vllm output throughput 84.4%")
        .contains("    lmdeploy on CUDA: lmdeploy TPOT/ITL 16.9%, output throughput 13.7%, TTFT 16.7%")
        .contains("(lmdeploy: its KV cache is 0.5 of the whole memory instead), blocks of the profile's"
            + " tokens (default 16), all-reduce latency 5 us (NVLink, Infinity Fabric) or 20 us (PCIe)")
        .contains("variation (simulate): none by default; --variation: iteration time CV 0.05, arrival jitter 0-2 ms");
  }

  @Test
  void jsonCarriesTheConfigFieldsAndDatasheetFigures() throws Exception {
    Cli.Result r = Cli.run("sim", "presets", "--json");
    assertThat(r.exitCode()).isZero();
    JsonNode root = new ObjectMapper().readTree(r.out());
    assertThat(root.get("models")).hasSize(Presets.models().size());
    assertThat(root.get("gpus")).hasSize(Presets.gpus().size());
    JsonNode accuracy = root.get("accuracy");
    assertThat(accuracy.at("/all_sources/2/quantity").asText()).isEqualTo("ttft");
    assertThat(accuracy.at("/all_sources/2/median_abs_error_pct").asDouble()).isEqualTo(25.0);
    assertThat(accuracy.get("sources")).hasSize(11);
    JsonNode rocmSource = accuracy.get("sources").get(2);
    assertThat(rocmSource.get("source").asText()).isEqualTo("rocm-vllm");
    assertThat(rocmSource.get("platform").asText()).isEqualTo("rocm");
    assertThat(rocmSource.get("figures")).hasSize(1); // throughput only
    assertThat(rocmSource.at("/figures/0/median_abs_error_pct").asDouble()).isEqualTo(84.4);
    JsonNode qwen = root.get("models").get(4);
    assertThat(qwen.get("id").asText()).isEqualTo("qwen2.5-7b");
    assertThat(qwen.get("num_key_value_heads").asInt()).isEqualTo(4);
    assertThat(qwen.get("kv_bytes_per_token_bf16").asLong()).isEqualTo(2L * 28 * 4 * 128 * 2);
    JsonNode mi300x = root.get("gpus").get(7);
    assertThat(mi300x.get("memory_bytes").asLong()).isEqualTo(192L << 30);
    assertThat(mi300x.get("memory_bandwidth_bytes_per_second").asDouble()).isEqualTo(5.3e12);
    assertThat(mi300x.get("source").asText()).contains("MI300X");
    JsonNode engine = root.get("engine_defaults");
    assertThat(engine.get("mfu").asDouble()).isEqualTo(0.725);
    assertThat(engine.get("mbu").asDouble()).isEqualTo(0.88);
    assertThat(engine.get("iteration_overhead_ms").asDouble()).isEqualTo(2.0);
    assertThat(engine.get("per_sequence_overhead_ms").asDouble()).isEqualTo(0.0075);
    assertThat(engine.get("max_num_seqs").asInt()).isEqualTo(1024); // vLLM on an H100
    JsonNode profiles = root.get("engine_profiles");
    assertThat(profiles).hasSize(4);
    assertThat(profiles.get(1).get("id").asText()).isEqualTo("sglang");
    assertThat(profiles.get(1).get("scheduling").asText()).isEqualTo("prefill_first");
    assertThat(profiles.get(1).get("cuda_graph_max_batch").asInt()).isEqualTo(160);
    assertThat(profiles.get(2).get("admission").asText()).isEqualTo("reserve_full");
    assertThat(profiles.get(2).get("iteration_overhead_ms").asDouble()).isEqualTo(5.5);
    JsonNode lmdeploy = profiles.get(3);
    assertThat(lmdeploy.get("id").asText()).isEqualTo("lmdeploy");
    assertThat(lmdeploy.get("block_tokens").asInt()).isEqualTo(128);
    assertThat(lmdeploy.get("kv_memory_share").asDouble()).isEqualTo(0.5);
    assertThat(lmdeploy.get("prefix_caching").asBoolean()).isFalse();
    assertThat(lmdeploy.get("cuda_graph_max_batch").asInt()).isZero();
    assertThat(lmdeploy.get("iteration_overhead_ms").asDouble()).isEqualTo(1.6);
    assertThat(lmdeploy.get("per_sequence_overhead_ms").asDouble()).isEqualTo(0.0525);
    JsonNode rocm = root.get("platforms").get(1);
    assertThat(rocm.get("id").asText()).isEqualTo("rocm");
    assertThat(rocm.get("iteration_overhead_ms").asDouble()).isEqualTo(3.7);
    assertThat(rocm.get("per_sequence_overhead_ms").asDouble()).isEqualTo(0.0925);
    assertThat(root.get("platforms").get(0).get("iteration_overhead_ms").asDouble()).isZero();
  }

  @Test
  void aModelThatDoesNotFitIsAUsageError() {
    Cli.Result r = Cli.run("sim", "serve", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--port", "0");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("does not fit on 1 x h100-sxm");
    Cli.Result unknown = Cli.run("demo", "--gpu", "tpu-v5");
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err()).contains("unknown GPU 'tpu-v5'").contains("h100-sxm");
  }
}
