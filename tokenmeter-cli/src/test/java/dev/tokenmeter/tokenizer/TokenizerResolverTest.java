package dev.tokenmeter.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenizerResolverTest {
  @TempDir Path tmp;

  private TokenizerResolver resolver(Map<String, String> env) {
    return new TokenizerResolver(env, tmp.resolve("home"), ModelTokenizers.builtIn());
  }

  @Test
  void modelNamesMapToTiktokensEncodings() {
    ModelTokenizers m = ModelTokenizers.builtIn();
    assertThat(m.specFor("gpt-4o")).hasValue("o200k_base");
    assertThat(m.specFor("GPT-4o-2024-08-06")).hasValue("o200k_base");
    assertThat(m.specFor("openai/gpt-4.1-mini")).hasValue("o200k_base");
    assertThat(m.specFor("o3")).hasValue("o200k_base");
    assertThat(m.specFor("o3-mini")).hasValue("o200k_base");
    assertThat(m.specFor("gpt-4")).hasValue("cl100k_base");
    assertThat(m.specFor("gpt-4-turbo")).hasValue("cl100k_base");
    assertThat(m.specFor("gpt-3.5-turbo-0125")).hasValue("cl100k_base");
    assertThat(m.specFor("ft:gpt-4o-mini:acme::abc")).hasValue("o200k_base"); // longest prefix
    assertThat(m.specFor("text-davinci-003")).hasValue("p50k_base");
    assertThat(m.specFor("davinci")).hasValue("r50k_base");
    assertThat(m.specFor("meta-llama/Llama-3.1-8B-Instruct"))
        .hasValue("hf:meta-llama/Llama-3.1-8B-Instruct");
    assertThat(m.specFor("meta-llama/Llama-3.1-70B")).hasValue("hf:meta-llama/Llama-3.1-8B-Instruct");
    assertThat(m.specFor("meta-llama/Llama-3.2-1B")).isEmpty();
    assertThat(m.with(Map.of("My-Model", "cl100k_base")).specFor("my-model")).hasValue("cl100k_base");
  }

  @Test
  void encodingsAndModelNamesResolve() {
    TokenizerResolver r = resolver(Map.of());
    assertThat(r.resolve("o200k_base").name()).isEqualTo("o200k_base");
    assertThat(r.resolve("gpt-4o").name()).isEqualTo("o200k_base");
    assertThat(r.resolve("gpt-4").count("Hello, world!")).isEqualTo(4);
    assertThat(r.resolve("o200k_base")).isSameAs(r.resolve(" o200k_base ")); // loaded once
  }

  @Test
  void pathsToAFileOrAModelFolderResolve() throws IOException {
    Path folder = Files.createDirectories(tmp.resolve("Llama-3"));
    Files.copy(TestTokenizers.hfFile("llama3"), folder.resolve("tokenizer.json"));
    TokenizerResolver r = resolver(Map.of());
    assertThat(r.resolve(folder.toString()).encode("Hello world")).containsExactly(9906, 1917);
    assertThat(r.resolve(folder.resolve("tokenizer.json").toString()).count("Hello world"))
        .isEqualTo(2);
  }

  @Test
  void hfNamesResolveFromTheHubCacheLayout() throws IOException {
    Path hub = tmp.resolve("hf-home").resolve("hub");
    Path repo = hub.resolve("models--meta-llama--Meta-Llama-3-8B");
    Path snapshot = Files.createDirectories(repo.resolve("snapshots").resolve("abc123"));
    Files.copy(TestTokenizers.hfFile("llama3"), snapshot.resolve("tokenizer.json"));
    Files.createDirectories(repo.resolve("refs"));
    Files.writeString(repo.resolve("refs").resolve("main"), "abc123\n");

    TokenizerResolver byHfHome = resolver(Map.of("HF_HOME", tmp.resolve("hf-home").toString()));
    Tokenizer t = byHfHome.resolve("hf:meta-llama/Meta-Llama-3-8B");
    assertThat(t.name()).isEqualTo("hf:meta-llama/Meta-Llama-3-8B");
    assertThat(t.encode("Hello world")).containsExactly(9906, 1917);
    // HF_HUB_CACHE wins over HF_HOME; forModel finds an org/name model in the cache.
    TokenizerResolver byHubCache =
        resolver(Map.of("HF_HUB_CACHE", hub.toString(), "HF_HOME", "/nonexistent"));
    assertThat(byHubCache.forModel("meta-llama/Meta-Llama-3-8B")).isPresent();
    assertThat(byHubCache.forModel("meta-llama/Other")).isEmpty();
    assertThat(byHubCache.forModel("gpt-4o").orElseThrow().name()).isEqualTo("o200k_base");
  }

  @Test
  void defaultHubCacheIsUnderHomeOrXdg() {
    assertThat(resolver(Map.of()).hubCache())
        .isEqualTo(tmp.resolve("home/.cache/huggingface/hub"));
    assertThat(resolver(Map.of("XDG_CACHE_HOME", "/x")).hubCache())
        .isEqualTo(Path.of("/x/huggingface/hub"));
  }

  @Test
  void missingHfTokenizerSaysWhichFileToPlaceWhere() {
    TokenizerResolver r = resolver(Map.of("HF_HUB_CACHE", "/hub", "HF_HUB_OFFLINE", "1"));
    assertThatThrownBy(() -> r.resolve("hf:Qwen/Qwen3-8B"))
        .isInstanceOf(TokenizerException.class)
        .hasMessageContaining("/hub/models--Qwen--Qwen3-8B/snapshots/main/tokenizer.json")
        .hasMessageContaining("HF_HUB_OFFLINE is set, so tokenmeter does not download")
        .hasMessageContaining("huggingface-cli download Qwen/Qwen3-8B tokenizer.json");
  }

  @Test
  void badSpecsExplainTheForms() throws IOException {
    TokenizerResolver r = resolver(Map.of());
    assertThatThrownBy(() -> r.resolve("llama-9"))
        .isInstanceOf(TokenizerException.class)
        .hasMessageContaining("unknown tokenizer 'llama-9'")
        .hasMessageContaining("o200k_base");
    assertThatThrownBy(() -> r.resolve("models/none/tokenizer.json"))
        .hasMessageContaining("tokenizer file not found: models/none/tokenizer.json");
    assertThatThrownBy(() -> r.resolve("hf:justaname")).hasMessageContaining("expected hf:org/name");
    Path bad = Files.writeString(tmp.resolve("bad.json"), "{\"not\": \"a tokenizer\"}");
    assertThatThrownBy(() -> r.resolve(bad.toString()))
        .isInstanceOf(TokenizerException.class)
        .hasMessageContaining("is not a Hugging Face tokenizer.json");
    Path emptyFolder = Files.createDirectories(tmp.resolve("empty-model"));
    assertThatThrownBy(() -> r.resolve(emptyFolder.toString())).hasMessageContaining("has no tokenizer.json");
  }
}
