package dev.tokenmeter.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** User model maps: file format, globs, precedence, layering, and models without a cached tokenizer. */
class ModelMapTest {
  @TempDir Path tmp;

  private Path write(String name, String json) throws IOException {
    Path p = tmp.resolve(name);
    Files.createDirectories(p.getParent());
    return Files.writeString(p, json);
  }

  @Test
  void exactNamesBeatGlobsAndLongerGlobsBeatShorterOnes() throws IOException {
    Path file =
        write(
            "m.json",
            """
            {"acme/*": "r50k_base",
             "acme/chat-*": "p50k_base",
             "ACME/chat-7b": "cl100k_base",
             "*-mini": "o200k_base",
             "my-tok": "./tok/tokenizer.json",
             "alias": "gpt-4"}
            """);
    ModelTokenizers m = ModelTokenizers.builtIn().with(file.toString(), ModelTokenizers.readFile(file));
    assertThat(m.specFor("acme/chat-7b")).hasValue("cl100k_base"); // exact, case ignored
    assertThat(m.specFor("acme/chat-70b")).hasValue("p50k_base"); // 10 literal characters beat 5
    assertThat(m.specFor("acme/base")).hasValue("r50k_base");
    assertThat(m.match("gpt-4o-mini").orElseThrow().source()).isEqualTo(file.toString()); // user first
    assertThat(m.match("gpt-4o").orElseThrow().builtIn()).isTrue();
    // A relative path is relative to the map file's folder.
    assertThat(m.specFor("my-tok")).hasValue(tmp.resolve("tok/tokenizer.json").toString());
    TokenizerResolver r = new TokenizerResolver(Map.of(), tmp, m);
    assertThat(r.resolve("alias").name()).isEqualTo("cl100k_base"); // a model name as the spec
  }

  @Test
  void layersStackBuiltInUnderTheDefaultFileUnderTheGivenFile() throws IOException {
    write("xdg/tokenmeter/tokenizers.json", "{\"team-*\": \"cl100k_base\", \"gpt-4o\": \"p50k_base\"}");
    Path given = write("given.json", "{\"team-a\": \"r50k_base\"}");
    Map<String, String> env = Map.of("XDG_CONFIG_HOME", tmp.resolve("xdg").toString());
    ModelTokenizers m = TokenizerResolver.models(env, tmp.resolve("home"), given);
    assertThat(m.specFor("team-a")).hasValue("r50k_base"); // --tokenizer-map wins
    assertThat(m.specFor("team-b")).hasValue("cl100k_base"); // the default file
    assertThat(m.specFor("gpt-4o")).hasValue("p50k_base"); // over the built-in table
    assertThat(m.specFor("gpt-4.1")).hasValue("o200k_base"); // built in

    // ~/.config is the default without XDG_CONFIG_HOME; TOKENMETER_TOKENIZER_MAP overrides both.
    write("home/.config/tokenmeter/tokenizers.json", "{\"x\": \"r50k_base\"}");
    assertThat(TokenizerResolver.models(Map.of(), tmp.resolve("home"), null).specFor("x"))
        .hasValue("r50k_base");
    Path explicit = write("env.json", "{\"x\": \"p50k_base\"}");
    Map<String, String> byEnv = Map.of("TOKENMETER_TOKENIZER_MAP", explicit.toString());
    assertThat(TokenizerResolver.models(byEnv, tmp.resolve("home"), null).specFor("x"))
        .hasValue("p50k_base");
  }

  @Test
  void badMapFilesAreUsageErrorsNamingTheFile() throws IOException {
    Path notJson = write("a.json", "{x");
    assertThatThrownBy(() -> ModelTokenizers.readFile(notJson))
        .isInstanceOf(TokenizerException.class).hasMessageContaining(notJson + " is not JSON");
    Path array = write("b.json", "[1]");
    assertThatThrownBy(() -> ModelTokenizers.readFile(array)).hasMessageContaining("one JSON object");
    Path number = write("c.json", "{\"m\": 3}");
    assertThatThrownBy(() -> ModelTokenizers.readFile(number))
        .hasMessageContaining("\"m\" must map to a tokenizer spec string");
    assertThatThrownBy(() -> ModelTokenizers.readFile(tmp.resolve("none.json")))
        .hasMessageContaining("tokenizer map not found");
    Map<String, String> env = Map.of("TOKENMETER_TOKENIZER_MAP", tmp.resolve("gone.json").toString());
    assertThatThrownBy(() -> TokenizerResolver.models(env, tmp, null))
        .hasMessageContaining("TOKENMETER_TOKENIZER_MAP names");
    ModelTokenizers cycle = ModelTokenizers.builtIn().with(Map.of("a", "b", "b", "a"));
    assertThatThrownBy(() -> new TokenizerResolver(Map.of(), tmp, cycle).resolve("a"))
        .hasMessageContaining("a cycle?");
  }

  @Test
  void theDemoModelUsesTheCachedLlamaTokenizerElseFallsBackWithAHint() throws IOException {
    Path hub = tmp.resolve("hub");
    TokenizerResolver empty = new TokenizerResolver(Map.of("HF_HUB_CACHE", hub.toString()), tmp, ModelTokenizers.builtIn());
    assertThat(empty.forModel("meta-llama/Llama-3.1-8B-Instruct")).isEmpty();
    assertThat(empty.hintFor("meta-llama/Llama-3.1-8B-Instruct"))
        .contains("uses hf:meta-llama/Llama-3.1-8B-Instruct, which is not in the Hugging Face cache")
        .contains("--tokenizer hf:meta-llama/Llama-3.1-8B-Instruct");
    assertThat(empty.hintFor("local-model")).isNull();

    Path snapshot =
        Files.createDirectories(hub.resolve("models--meta-llama--Llama-3.1-8B-Instruct/snapshots/0e9e"));
    Files.copy(TestTokenizers.hfFile("llama3"), snapshot.resolve("tokenizer.json"));
    TokenizerResolver cached = new TokenizerResolver(Map.of("HF_HUB_CACHE", hub.toString()), tmp, ModelTokenizers.builtIn());
    Tokenizer t = cached.forModel("meta-llama/Llama-3.1-70B-Instruct").orElseThrow();
    assertThat(t.name()).isEqualTo("hf:meta-llama/Llama-3.1-8B-Instruct"); // the family's tokenizer
    assertThat(t.encode("Hello world")).containsExactly(9906, 1917);
  }

  @Test
  void aUserEntryThatCannotLoadIsAnErrorNotASilentEstimate() {
    ModelTokenizers m = ModelTokenizers.builtIn().with(Map.of("mine", tmp.resolve("missing.json").toString()));
    TokenizerResolver r = new TokenizerResolver(Map.of(), tmp, m);
    assertThatThrownBy(() -> r.forModel("mine")).hasMessageContaining("tokenizer file not found");
  }
}
