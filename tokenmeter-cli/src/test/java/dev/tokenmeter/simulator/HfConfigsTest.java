package dev.tokenmeter.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.simulator.engine.ModelSpec;
import dev.tokenmeter.simulator.engine.Precision;
import dev.tokenmeter.simulator.engine.Presets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HfConfigsTest {
  private static final Path HF = Path.of("tokenmeter-cli/src/test/resources/hf");

  /** Each public config maps to the preset of that model, field for field. */
  @ParameterizedTest
  @CsvSource({
    "deepseek-v3.json, deepseek-v3",
    "gpt-oss-120b.json, gpt-oss-120b",
    "gpt-oss-20b.json, gpt-oss-20b",
    "qwen3-235b-a22b.json, qwen3-235b-a22b",
    "qwen3-30b-a3b.json, qwen3-30b-a3b",
    "qwen3-32b.json, qwen3-32b",
    "llama-4-scout.json, llama-4-scout",
    "llama-4-maverick.json, llama-4-maverick",
    "gemma-3-27b.json, gemma-3-27b",
    "llama-3.1-8b.json, llama-3.1-8b",
    "mixtral-8x7b.json, mixtral-8x7b",
  })
  void publicConfigsMapToTheirPresets(String file, String preset) {
    ModelSpec read = SpecFiles.readModel(HF.resolve(file));
    ModelSpec expected = Presets.model(preset);
    assertThat(read)
        .usingRecursiveComparison()
        .ignoringFields("id", "name", "source", "architecture.family")
        .isEqualTo(expected);
    assertThat(read.id()).isEqualTo(file.replace(".json", ""));
  }

  @Test
  void deepSeekV3CountsToItsPublishedTotals() {
    ModelSpec m = SpecFiles.readModel(HF.resolve("deepseek-v3.json"));
    // 671B total; 36.6B active without the 0.93B input embedding (its README)
    assertThat(m.totalParams()).isEqualTo(671_026_419_200L);
    assertThat(m.activeParams() - m.embeddingParams()).isEqualTo(36_625_618_432L);
    assertThat(m.architecture().kvLoraRank()).isEqualTo(512);
    assertThat(m.architecture().nativeWeights()).isEqualTo(Precision.FP8);
    // MLA's cache: 61 layers × (512 + 64) × 2 bytes, the same on every TP rank
    assertThat(m.kvBytesPerTokenPerGpu(Precision.BF16, 1)).isEqualTo(70_272);
    assertThat(m.kvBytesPerTokenPerGpu(Precision.BF16, 8)).isEqualTo(70_272);
    assertThat(m.kvBytesPerTokenPerGpu(Precision.FP8, 8)).isEqualTo(35_136);
  }

  @Test
  void gptOssIsMxfp4ExpertsWithSixteenBitAttentionAndAlternatingWindows() {
    ModelSpec m = SpecFiles.readModel(HF.resolve("gpt-oss-120b.json"));
    // OpenAI's model card: 116.83B total, 5.13B active without the embedding
    assertThat(m.totalParams()).isEqualTo(116_829_156_672L);
    assertThat((m.activeParams() - m.embeddingParams()) / 1e9).isBetween(5.13, 5.14);
    assertThat(m.architecture().nativeWeights()).isEqualTo(Precision.MXFP4);
    assertThat(m.architecture().attentionWeightsWide()).isTrue();
    assertThat(m.architecture().slidingLayers()).isEqualTo(18);
    assertThat(m.architecture().slidingWindow()).isEqualTo(128);
  }

  @Test
  void aModelFolderAndTheHubCacheReadTheSameConfig(@TempDir Path dir) throws Exception {
    Path folder = dir.resolve("Qwen3-32B");
    Files.createDirectories(folder);
    Files.copy(HF.resolve("qwen3-32b.json"), folder.resolve("config.json"));
    ModelSpec fromFolder = SpecFiles.readModel(folder);
    assertThat(fromFolder.id()).isEqualTo("qwen3-32b");

    Path hub = dir.resolve("hf-home").resolve("hub");
    Path snap = hub.resolve("models--Qwen--Qwen3-32B/snapshots/abc123");
    Files.createDirectories(snap);
    Files.copy(HF.resolve("qwen3-32b.json"), snap.resolve("config.json"));
    Files.createDirectories(hub.resolve("models--Qwen--Qwen3-32B/refs"));
    Files.writeString(hub.resolve("models--Qwen--Qwen3-32B/refs/main"), "abc123\n");
    ModelSpec cached = HfConfigs.fromCache("Qwen/Qwen3-32B",
        Map.of("HF_HOME", dir.resolve("hf-home").toString()));
    assertThat(cached.name()).isEqualTo("Qwen/Qwen3-32B");
    assertThat(cached).usingRecursiveComparison().ignoringFields("id", "name", "source")
        .isEqualTo(fromFolder);
    // HF_HUB_CACHE wins over HF_HOME
    assertThat(HfConfigs.hubCache(Map.of("HF_HOME", "/a", "HF_HUB_CACHE", "/b"))).isEqualTo(Path.of("/b"));
  }

  @Test
  void whatCannotBeMappedIsOneLineNamingTheSupportedArchitectures(@TempDir Path dir) throws Exception {
    assertThatThrownBy(() -> SpecFiles.readModel(HF.resolve("mamba-2.8b")))
        .isInstanceOf(SpecFiles.Invalid.class)
        .hasMessageContaining("MambaForCausalLM")
        .hasMessageContaining("deepseek_v3")
        .hasMessageContaining("gemma3")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(() -> HfConfigs.fromCache("nobody/nothing", Map.of("HF_HUB_CACHE", dir.toString())))
        .hasMessageContaining("huggingface-cli download nobody/nothing")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(() -> HfConfigs.fromCache("not-a-repo", Map.of()))
        .hasMessageContaining("hf:org/name");
    Path q = dir.resolve("config.json");
    Files.writeString(q, "{\"model_type\":\"llama\",\"num_hidden_layers\":2,\"hidden_size\":64,"
        + "\"num_attention_heads\":4,\"vocab_size\":100,\"max_position_embeddings\":128,"
        + "\"intermediate_size\":128,\"quantization_config\":{\"quant_method\":\"hqq\"}}");
    assertThatThrownBy(() -> SpecFiles.readModel(q))
        .hasMessageContaining("'hqq'")
        .hasMessageContaining("--precision");
    Files.writeString(q, "{\"model_type\":\"llama\",\"hidden_size\":64}");
    assertThatThrownBy(() -> SpecFiles.readModel(q)).hasMessageContaining("num_hidden_layers");
  }

  @Test
  void quantizationConfigsNameTheirPrecision() throws Exception {
    var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
    assertThat(HfConfigs.weights(mapper.readTree(
        "{\"quantization_config\":{\"quant_method\":\"modelopt\",\"quant_algo\":\"NVFP4\"}}")))
        .isEqualTo(Precision.FP4);
    assertThat(HfConfigs.weights(mapper.readTree(
        "{\"quantization_config\":{\"quant_method\":\"compressed-tensors\",\"config_groups\":"
            + "{\"g\":{\"weights\":{\"num_bits\":8,\"type\":\"float\"}}}}}")))
        .isEqualTo(Precision.FP8);
    assertThat(HfConfigs.weights(mapper.readTree(
        "{\"quantization_config\":{\"quant_method\":\"awq\",\"bits\":4}}")))
        .isEqualTo(Precision.INT4);
    assertThat(HfConfigs.weights(mapper.readTree("{\"torch_dtype\":\"float16\"}")))
        .isEqualTo(Precision.FP16);
  }
}
