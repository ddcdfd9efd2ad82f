package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.simulator.PromptCounter;
import dev.tokenmeter.simulator.PromptTokens;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.tokenizer.Tokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One count of a prompt's tokens on both sides: bench's planned prompt tokens equal the simulator's
 * {@code usage.prompt_tokens} less its chat framing (4 tokens a message, 3 priming the reply) when
 * both count with the same tokenizer, and the terminal says by how much they differ when the
 * server counts with another (docs/TOKENIZERS.md, "One count").
 */
@Timeout(120)
class PromptCountsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** One user message: 4 framing tokens and 3 priming the reply. */
  private static final int FRAMING = PromptTokens.FRAMING_PER_MESSAGE + PromptTokens.REPLY_PRIMING;

  @TempDir Path tmp;

  /** demo's embedded server counts with the tokenizer bench chose: the default one, or --tokenizer's. */
  @ParameterizedTest
  @ValueSource(strings = {"default", "o200k_base"})
  void demoPlansExactlyWhatTheSimulatorCountsLessItsFraming(String tokenizer) throws Exception {
    Path out = tmp.resolve("demo-" + tokenizer);
    List<String> args = new ArrayList<>(List.of("demo", "--concurrency", "2", "--duration", "2s", "--warmup", "0s",
        "--cooldown", "0s", "--input-tokens", "uniform:200,400", "--output-tokens", "4", "--out", out.toString()));
    if (!tokenizer.equals("default")) {
      args.addAll(List.of("--tokenizer", tokenizer));
    }
    Cli.Result r = Cli.run(args.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.both()).isZero();
    List<JsonNode> requests = requests(out);
    assertThat(requests).hasSizeGreaterThan(4);
    for (JsonNode q : requests) {
      assertThat(q.get("usage_prompt_tokens").asInt()).as(q.toString())
          .isEqualTo(q.get("client_prompt_tokens").asInt() + FRAMING);
    }
    JsonNode overhead = JSON.readTree(out.resolve("summary.json").toFile()).at("/stages/0/tokens/prompt_overhead");
    assertThat(overhead.get("min_tokens").asInt()).isEqualTo(FRAMING);
    assertThat(overhead.get("max_tokens").asInt()).isEqualTo(FRAMING);
    assertThat(overhead.get("counts_differ").asBoolean()).isFalse();
    assertThat(r.both()).doesNotContain("prompt tokens than");
  }

  /**
   * bench with o200k_base against a server counting with r50k_base (GPT-2's, which spends 2 to 3
   * tokens on a CJK character where o200k_base spends about one): known prompts, the server's
   * count, and the note with their ratio; then the same server counting with o200k_base agrees.
   */
  @Test
  void aServerCountingWithAnotherTokenizerGetsTheNoteAndTheSameOneAgrees() throws Exception {
    // Each about 150 to 250 o200k_base tokens: well above what a chat template could add.
    Path prompts = Files.writeString(tmp.resolve("prompts.jsonl"), String.join("\n",
        "{\"prompt\":\"" + "请用三句话解释连续批处理如何提高大型语言模型推理服务器的吞吐量，并说明首个令牌时间为何会变化。".repeat(6) + "\"}",
        "{\"prompt\":\"" + "東京の天気予報を教えてください。明日は雨が降りますか、それとも晴れますか。".repeat(8) + "\"}",
        "{\"prompt\":\"" + "def tokens(text):\\n    return [t for t in text.split() if t]  # 한국어 주석입니다\\n".repeat(8) + "\"}"));
    Tokenizer o200k = Tokenizer.openAi("o200k_base");
    Tokenizer r50k = Tokenizer.openAi("r50k_base");

    Path other = tmp.resolve("other");
    Cli.Result r = bench(PromptCounter.tokenizer("r50k_base", r50k::encode), prompts, other);
    assertThat(r.exitCode()).as(r.both()).isZero();
    long client = 0;
    long usage = 0;
    for (JsonNode q : requests(other)) {
      client += q.get("client_prompt_tokens").asInt();
      usage += q.get("usage_prompt_tokens").asInt();
    }
    long n = requests(other).size();
    double ratio = (double) (usage - client) / client;
    assertThat(ratio).as("r50k_base counts these prompts far above o200k_base").isGreaterThan(0.5);
    assertThat(r.out()).contains(String.format(java.util.Locale.ROOT,
        "note: the server counts %.0f%% more prompt tokens than o200k_base (mean %.0f vs %.0f a request;",
        100 * ratio, (double) usage / n, (double) client / n));
    JsonNode overhead = JSON.readTree(other.resolve("summary.json").toFile()).at("/stages/0/tokens/prompt_overhead");
    assertThat(overhead.get("counts_differ").asBoolean()).isTrue();

    Path same = tmp.resolve("same");
    r = bench(PromptCounter.tokenizer("o200k_base", o200k::encode), prompts, same);
    assertThat(r.exitCode()).as(r.both()).isZero();
    for (JsonNode q : requests(same)) {
      assertThat(q.get("client_prompt_tokens_exact").asBoolean()).isTrue();
      assertThat(q.get("usage_prompt_tokens").asInt()).as(q.toString())
          .isEqualTo(q.get("client_prompt_tokens").asInt() + FRAMING);
    }
    assertThat(r.out()).doesNotContain("prompt tokens than");
  }

  private static Cli.Result bench(PromptCounter serverCounter, Path prompts, Path out) throws Exception {
    try (SimFixture sim = SimFixture.start(SimFixture.config(0, 0).promptCounter(serverCounter))) {
      return Cli.run("bench", "--url", sim.baseUrl(), "--tokenizer", "o200k_base", "--prompts", prompts.toString(),
          "--concurrency", "1", "--requests", "6", "--warmup", "0s", "--cooldown", "0s", "--output-tokens", "4",
          "--out", out.toString());
    }
  }

  private static List<JsonNode> requests(Path run) throws Exception {
    List<JsonNode> measured = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("requests.jsonl"))) {
      JsonNode q = JSON.readTree(line);
      if (q.get("phase").asText().equals("measured") && q.get("ok").asBoolean()) {
        measured.add(q);
      }
    }
    return measured;
  }
}
