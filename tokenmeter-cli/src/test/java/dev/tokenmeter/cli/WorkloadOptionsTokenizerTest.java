package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.tokenizer.Tokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadOptionsTokenizerTest {
  private static StagePlan plan() {
    return new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(1), 0, 0, 7);
  }

  @Test
  void aKnownModelGivesExactPromptsAndAnOutputCounter() {
    WorkloadOptions w = new WorkloadOptions();
    w.inputTokens = "300";
    w.validate();
    RequestSpec spec = w.factory("gpt-4o-mini").apply(plan()).next(3);
    Tokenizer o200k = Tokenizer.openAi("o200k_base");
    assertThat(w.tokenizer().name()).isEqualTo("o200k_base");
    assertThat(spec.promptTokensExact()).isTrue();
    assertThat(o200k.count(((Prompt.Text) spec.prompt()).text())).isEqualTo(300).isEqualTo(spec.promptTokens());
    assertThat(w.outputCounter().count("Hello, world!")).isEqualTo(4);
    assertThat(w.tokenizerLine()).contains("o200k_base (from model gpt-4o-mini)");
    assertThat(w.describe()).containsEntry("tokenizer", "o200k_base").containsEntry("input_tokens_exact", true);
  }

  @Test
  void anExplicitTokenizerWinsOverTheModel() {
    WorkloadOptions w = new WorkloadOptions();
    w.tokenizers.tokenizer = "cl100k_base";
    w.validate();
    w.factory("gpt-4o");
    assertThat(w.tokenizer().name()).isEqualTo("cl100k_base");
    assertThat(w.describe()).containsEntry("tokenizer_source", "--tokenizer");
  }

  @Test
  void anUnknownModelFallsBackToTheLabelledEstimate() {
    WorkloadOptions w = new WorkloadOptions();
    w.validate();
    RequestSpec spec = w.factory("some-local-model").apply(plan()).next(0);
    assertThat(spec.promptTokensExact()).isFalse();
    assertThat(w.outputCounter()).isNull();
    assertThat(w.tokenizerLine()).contains("estimates");
    assertThat(w.describe()).containsEntry("tokenizer", "heuristic").containsEntry("input_tokens_exact", false);
  }

  @Test
  void theSimulatorCountsAPromptAsTheWorkloadSizedIt() {
    WorkloadOptions exact = new WorkloadOptions();
    exact.inputTokens = "300";
    exact.validate();
    RequestSpec spec = exact.factory("gpt-4o-mini").apply(plan()).next(1);
    String text = ((Prompt.Text) spec.prompt()).text();
    assertThat(exact.promptCounter().name()).isEqualTo("o200k_base");
    assertThat(exact.promptCounter().ids(text)).isEqualTo(Tokenizer.openAi("o200k_base").encode(text)).hasSize(300);

    WorkloadOptions estimate = new WorkloadOptions();
    estimate.inputTokens = "300";
    estimate.validate();
    RequestSpec guessed = estimate.factory("some-local-model").apply(plan()).next(1);
    assertThat(estimate.promptCounter().name()).isEqualTo("heuristic");
    assertThat(estimate.promptCounter().ids(((Prompt.Text) guessed.prompt()).text())).hasSize(guessed.promptTokens());
  }

  @Test
  void simServeResolvesItsTokenizerAsBenchDoes(@TempDir Path dir) throws Exception {
    Path map = Files.writeString(dir.resolve("tokenizers.json"), "{\"acme-*\": \"cl100k_base\"}");
    assertThat(SimCommand.Serve.promptCounter("gpt-4o", null, "tokenmeter-sim").name()).isEqualTo("o200k_base");
    assertThat(SimCommand.Serve.promptCounter(null, map, "acme-7b").name()).isEqualTo("cl100k_base");
    assertThat(SimCommand.Serve.promptCounter(null, null, "gpt-4.1-mini").name()).as("the built-in map").isEqualTo("o200k_base");
    assertThat(SimCommand.Serve.promptCounter(null, map, "tokenmeter-sim").name()).isEqualTo("heuristic");
    assertThatThrownBy(() -> SimCommand.Serve.promptCounter("no-such-tokenizer", null, "m"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown tokenizer");
  }

  @Test
  void simulateCountsAPromptFileWithTheSimulatedModelsTokenizer(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("p.jsonl"), "{\"prompt\":\"Explain continuous batching in one line.\"}\n");
    WorkloadOptions w = new WorkloadOptions();
    w.prompts = file;
    w.outputTokens = "8";
    RequestSpec spec = w.lengthsFactory("gpt-4o-mini").apply(plan()).next(0);
    assertThat(spec.promptTokensExact()).isTrue();
    assertThat(spec.promptTokens()).isEqualTo(Tokenizer.openAi("o200k_base").count("Explain continuous batching in one line."));
    WorkloadOptions unknown = new WorkloadOptions();
    unknown.prompts = file;
    unknown.outputTokens = "8";
    assertThat(unknown.lengthsFactory("acme/unknown-7b").apply(plan()).next(0).promptTokensExact()).isFalse();
  }

  @Test
  void aBadTokenizerIsAUsageErrorBeforeAnythingRuns() {
    WorkloadOptions w = new WorkloadOptions();
    w.tokenizers.tokenizer = "no-such-tokenizer";
    assertThatThrownBy(w::validate).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown tokenizer");
  }
}
