package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.simulator.EngineTiming;
import dev.tokenmeter.simulator.Fault;
import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.SimServer;
import dev.tokenmeter.simulator.TimingModel;
import dev.tokenmeter.testkit.NodeScripts;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The simulator as the official OpenAI Node SDK sees it ({@code openai} on npm, version pinned in
 * {@code src/test/sdk/package-lock.json}, installed by {@code scripts/install-sdk-check.sh}): a
 * client we did not write parses every answer, streamed and not, chat and completions, usage
 * chunks, the SDK's strict accumulating stream helper, and the error objects of refused requests
 * and injected faults. {@code src/test/sdk/check.mjs} reports what the SDK made of each.
 */
@Timeout(180)
class SdkCompatIT {
  static final String MODEL = "meta-llama/Llama-3.1-8B-Instruct";
  private static final Path DIR = NodeScripts.DIR;

  @BeforeAll
  static void install() throws Exception { // also ProxySdkIT's
    String log = NodeScripts.install();
    assertThat(DIR.resolve("node_modules/openai/package.json")).as(log).exists();
  }

  @Test
  void engineSimulatorSpeaksWhatTheSdkExpects() throws Exception {
    EngineConfig engine = EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm"));
    EngineTiming timing = new EngineTiming(engine, Ticker.system());
    SimConfig config =
        SimConfig.builder().port(0).timing(timing).maxModelLen(timing.maxModelLen()).servedModelName(MODEL).build();
    JsonNode r;
    try (SimServer server = SimServer.start(config)) {
      r = sdk(server, "all");
    }
    assertThat(r.at("/models/ids").toString()).as(r.toString()).isEqualTo("[\"" + MODEL + "\"]");

    assertThat(r.at("/chat/object").asText()).as(r.toString()).isEqualTo("chat.completion");
    assertThat(r.at("/chat/finish").asText()).isEqualTo("length");
    assertThat(r.at("/chat/role").asText()).isEqualTo("assistant");
    assertThat(r.at("/chat/chars").asInt()).isPositive();
    assertThat(r.at("/chat/usage/completion_tokens").asInt()).isEqualTo(12);

    // One chunk per token, one id for the whole stream, the usage chunk last.
    assertThat(r.at("/chatStream/contentChunks").asInt()).as(r.toString()).isEqualTo(12);
    assertThat(r.at("/chatStream/ids").asInt()).isEqualTo(1);
    assertThat(r.at("/chatStream/objects").toString()).isEqualTo("[\"chat.completion.chunk\"]");
    assertThat(r.at("/chatStream/finish").asText()).isEqualTo("length");
    assertThat(r.at("/chatStream/usage/completion_tokens").asInt()).isEqualTo(12);
    int prompt = r.at("/chatStream/usage/prompt_tokens").asInt();
    assertThat(r.at("/chatStream/usage/total_tokens").asInt()).isEqualTo(prompt + 12);

    assertThat(r.at("/chatStreamHelper/finish").asText()).as(r.toString()).isEqualTo("length");
    assertThat(r.at("/chatStreamHelper/usage/completion_tokens").asInt()).isEqualTo(8);
    assertThat(r.at("/chatStreamHelper/chars").asInt()).isPositive();

    assertThat(r.at("/completions/object").asText()).as(r.toString()).isEqualTo("text_completion");
    assertThat(r.at("/completions/usage/completion_tokens").asInt()).isEqualTo(10);
    assertThat(r.at("/completionsStream/textChunks").asInt()).as(r.toString()).isEqualTo(10);
    assertThat(r.at("/completionsStream/usage/completion_tokens").asInt()).isEqualTo(10);

    // A request beyond the context is refused as vLLM refuses it: HTTP 400 with an error object.
    assertThat(r.at("/tooLong/threw").asText()).as(r.toString()).isEqualTo("BadRequestError");
    assertThat(r.at("/tooLong/message").asText()).contains("maximum context length");
  }

  @Test
  void injectedFaultsReachTheSdkAsItsOwnErrors() throws Exception {
    JsonNode limited;
    try (SimServer server = SimServer.start(fast().faults(Faults.none().with(Fault.HTTP_429, 1.0)).build())) {
      limited = sdk(server, "faults");
    }
    assertThat(limited.at("/chat/threw").asText()).as(limited.toString()).isEqualTo("RateLimitError");
    assertThat(limited.at("/chat/status").asInt()).isEqualTo(429);
    assertThat(limited.at("/chatStream/threw").asText()).isEqualTo("RateLimitError");

    JsonNode broken;
    try (SimServer server = SimServer.start(fast().faults(Faults.none().with(Fault.ERROR_EVENT, 1.0)).build())) {
      broken = sdk(server, "faults");
    }
    // An error object inside an open stream: the SDK raises it instead of ending the stream quietly.
    assertThat(broken.at("/chatStream/threw").asText()).as(broken.toString()).isEqualTo("APIError");
  }

  private static SimConfig.Builder fast() {
    return SimConfig.builder().port(0).servedModelName(MODEL)
        .timing(TimingModel.fixed(TimeUnit.MILLISECONDS.toNanos(5), TimeUnit.MILLISECONDS.toNanos(1)));
  }

  private static JsonNode sdk(SimServer server, String mode) throws Exception {
    return sdk(server.baseUrl(), mode);
  }

  /** What check.mjs reports for the server at {@code baseUrl} (ProxySdkIT runs it through the proxy). */
  static JsonNode sdk(String baseUrl, String mode) throws Exception {
    return NodeScripts.check("check.mjs", baseUrl, MODEL, mode);
  }
}
