package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.simulator.Fault;
import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.simulator.OutputLengths;
import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.SimServer;
import dev.tokenmeter.simulator.TimingModel;
import dev.tokenmeter.testkit.NodeScripts;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The simulator's other APIs as their official SDKs see them (npm, versions pinned in {@code
 * src/test/sdk/package-lock.json}, installed by {@code scripts/install-sdk-check.sh}, driven by
 * {@code src/test/sdk/check-apis.mjs}): {@code @anthropic-ai/sdk} {@code messages.stream} and
 * {@code create}, {@code openai} {@code responses.stream} and {@code create}, {@code @google/genai}
 * {@code generateContentStream}, {@code ollama} {@code chat} (streamed) and {@code generate}, each
 * reading its stream to the end and getting the simulator's tokens and usage; and the injected
 * in-stream error and HTTP 429 as each SDK's own error. Thinking is not covered: the simulator
 * generates answer text only.
 */
@Timeout(180)
class ApiSdkCompatIT {
  private static final String MODEL = "meta-llama/Llama-3.1-8B-Instruct";
  private static final Path DIR = NodeScripts.DIR;

  @BeforeAll
  static void install() throws Exception {
    String log = NodeScripts.install();
    for (String sdk : List.of("@anthropic-ai/sdk", "@google/genai", "ollama", "openai")) {
      assertThat(DIR.resolve("node_modules/" + sdk + "/package.json")).as(log).exists();
    }
  }

  private static SimConfig.Builder fast() {
    return SimConfig.builder().port(0).servedModelName(MODEL).outputLengths(OutputLengths.fixed(8))
        .timing(TimingModel.fixed(TimeUnit.MILLISECONDS.toNanos(5), TimeUnit.MILLISECONDS.toNanos(1)));
  }

  @Test
  void eachSdkReadsItsStreamToTheSimulatorsTokensAndUsage() throws Exception {
    JsonNode r;
    try (SimServer server = SimServer.start(fast().build())) {
      r = sdk(server, "all");
    }
    String all = r.toString();
    assertThat(r.at("/anthropicStream/deltas").asInt()).as(all).isEqualTo(12);
    assertThat(r.at("/anthropicStream/stop").asText()).isEqualTo("max_tokens");
    assertThat(r.at("/anthropicStream/usage/output_tokens").asInt()).isEqualTo(12);
    int prompt = r.at("/anthropicStream/usage/input_tokens").asInt();
    assertThat(prompt).isPositive();
    assertThat(r.at("/anthropicStream/chars").asInt()).isPositive();
    assertThat(r.at("/anthropic/usage/output_tokens").asInt()).as(all).isEqualTo(7);
    assertThat(r.at("/anthropic/stop").asText()).isEqualTo("max_tokens");

    assertThat(r.at("/responsesStream/deltas").asInt()).as(all).isEqualTo(12);
    assertThat(r.at("/responsesStream/last").asText()).isEqualTo("response.incomplete");
    assertThat(r.at("/responsesStream/reason").asText()).isEqualTo("max_output_tokens");
    assertThat(r.at("/responsesStream/usage/output_tokens").asInt()).isEqualTo(12);
    assertThat(r.at("/responsesStream/usage/input_tokens").asInt()).isEqualTo(prompt);
    assertThat(r.at("/responses/status").asText()).as(all).isEqualTo("completed");
    assertThat(r.at("/responses/usage/output_tokens").asInt()).isEqualTo(8); // natural stop, EOS counted
    assertThat(r.at("/responses/chars").asInt()).isPositive();

    // The genai SDK sends no ignore_eos: 8 tokens, the EOS one an empty text part; usage counts it.
    assertThat(r.at("/geminiStream/chunks").asInt()).as(all).isEqualTo(8);
    assertThat(r.at("/geminiStream/finish").asText()).isEqualTo("STOP");
    assertThat(r.at("/geminiStream/usage/candidatesTokenCount").asInt()).isEqualTo(8);
    assertThat(r.at("/geminiStream/usage/promptTokenCount").asInt()).isEqualTo(prompt);

    assertThat(r.at("/ollamaChat/parts").asInt()).as(all).isEqualTo(12);
    assertThat(r.at("/ollamaChat/done").asBoolean()).isTrue();
    assertThat(r.at("/ollamaChat/reason").asText()).isEqualTo("length");
    assertThat(r.at("/ollamaChat/eval").asInt()).isEqualTo(12);
    assertThat(r.at("/ollamaChat/prompt").asInt()).isEqualTo(prompt);
    assertThat(r.at("/ollamaGenerate/eval").asInt()).as(all).isEqualTo(5);
    assertThat(r.at("/ollamaGenerate/chars").asInt()).isPositive();
  }

  @Test
  void injectedFaultsReachEachSdkAsItsOwnErrors() throws Exception {
    JsonNode broken;
    try (SimServer server = SimServer.start(fast().faults(Faults.none().with(Fault.ERROR_EVENT, 1.0).withAfterTokens(2)).build())) {
      broken = sdk(server, "faults");
    }
    String b = broken.toString();
    assertThat(broken.at("/anthropicStream/threw").asText()).as(b).isEqualTo("APIError");
    assertThat(broken.at("/anthropicStream/message").asText()).contains("overloaded_error");
    // The openai SDK ends a Responses stream at response.failed without throwing, after the 2 tokens.
    assertThat(broken.at("/responsesStream/last").asText()).as(b).isEqualTo("response.failed");
    assertThat(broken.at("/responsesStream/deltas").asInt()).isEqualTo(2);
    // @google/genai 1.0.0 (the last version for Node 18) does not raise an error object inside a
    // stream (2.x does): its stream just ends after the 2 tokens, with no finishReason.
    assertThat(broken.at("/geminiStream/finish").isNull()).as(b).isTrue();
    assertThat(broken.at("/geminiStream/usage/candidatesTokenCount").asInt()).isEqualTo(2);
    assertThat(broken.at("/ollamaChat/message").asText()).as(b).contains("Simulated engine failure");

    JsonNode limited;
    try (SimServer server = SimServer.start(fast().faults(Faults.none().with(Fault.HTTP_429, 1.0)).build())) {
      limited = sdk(server, "faults");
    }
    String l = limited.toString();
    assertThat(limited.at("/anthropicStream/threw").asText()).as(l).isEqualTo("RateLimitError");
    assertThat(limited.at("/responsesStream/threw").asText()).as(l).isEqualTo("RateLimitError");
    assertThat(limited.at("/geminiStream/threw").asText()).as(l).isEqualTo("ClientError");
    assertThat(limited.at("/geminiStream/message").asText()).contains("429").contains("RESOURCE_EXHAUSTED");
    assertThat(limited.at("/ollamaChat/threw").asText()).as(l).isEqualTo("ResponseError");
  }

  private static JsonNode sdk(SimServer server, String mode) throws Exception {
    return NodeScripts.check("check-apis.mjs", server, MODEL, mode);
  }
}
