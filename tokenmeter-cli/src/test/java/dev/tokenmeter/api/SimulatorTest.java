package dev.tokenmeter.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The public API's simulator over real sockets: scripted answers in each wire format, what it received, bad input. */
class SimulatorTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static Simulator sim;

  @BeforeAll
  static void start() {
    sim = Simulator.builder().ttft(Duration.ofMillis(5)).itl(Duration.ofMillis(1)).start();
  }

  @AfterAll
  static void stop() {
    sim.close();
  }

  @BeforeEach
  void reset() {
    sim.reset();
  }

  @Test
  void aScriptedTextIsStreamedTokenByTokenAndCountedInUsage() throws Exception {
    sim.answer(Answer.text("Paris is the capital of France."));
    HttpResponse<String> r = post("/v1/chat/completions", """
        {"model":"tokenmeter-sim","stream":true,"stream_options":{"include_usage":true},
         "messages":[{"role":"user","content":"What is the capital of France?"}]}""");
    assertThat(r.statusCode()).isEqualTo(200);
    List<JsonNode> chunks = events(r.body());
    StringBuilder text = new StringBuilder();
    int contentChunks = 0;
    for (JsonNode c : chunks) {
      String piece = c.path("choices").path(0).path("delta").path("content").asText("");
      if (!piece.isEmpty()) {
        contentChunks++;
        text.append(piece);
      }
    }
    assertThat(text).hasToString("Paris is the capital of France.");
    assertThat(contentChunks).isGreaterThan(3); // streamed in pieces, not one chunk
    JsonNode usage = chunks.get(chunks.size() - 1).path("usage");
    // one token per piece, plus EOS (vLLM counts it)
    assertThat(usage.path("completion_tokens").asInt()).isEqualTo(contentChunks + 1);
    ReceivedRequest got = sim.received().get(0);
    assertThat(got.status()).isEqualTo(200);
    assertThat(got.scripted()).isTrue();
    assertThat(got.lastUserText()).isEqualTo("What is the capital of France?");
    assertThat(got.completionTokens()).isEqualTo(usage.path("completion_tokens").asInt());
    assertThat(got.promptTokens()).isEqualTo(usage.path("prompt_tokens").asInt()).isPositive();
    assertThat(sim.completionTokens()).isEqualTo(got.completionTokens());
  }

  @Test
  void maxTokensCutsAScriptedTextWithFinishReasonLength() throws Exception {
    sim.answer(Answer.text("one two three four five six seven eight"));
    JsonNode body = JSON.readTree(post("/v1/chat/completions", """
        {"model":"tokenmeter-sim","max_tokens":3,"messages":[{"role":"user","content":"count"}]}""").body());
    assertThat(body.at("/choices/0/message/content").asText()).isEqualTo("one two three");
    assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("length");
    assertThat(body.at("/usage/completion_tokens").asInt()).isEqualTo(3);
  }

  @Test
  void aRuleAnswersTheRequestsItMatchesWithAToolCall() throws Exception {
    sim.answer(Answer.text("It is sunny."));
    sim.when(r -> r.lastUserText().contains("weather"), Answer.toolCall("get_weather", "{\"city\": \"Paris\"}"));
    String tools = """
        "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object",
          "properties":{"city":{"type":"string"}},"required":["city"]}}}]""";
    JsonNode call = JSON.readTree(post("/v1/chat/completions", "{\"model\":\"tokenmeter-sim\"," + tools
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"What is the weather in Paris?\"}]}").body());
    JsonNode fn = call.at("/choices/0/message/tool_calls/0/function");
    assertThat(fn.path("name").asText()).isEqualTo("get_weather");
    assertThat(JSON.readTree(fn.path("arguments").asText())).isEqualTo(JSON.readTree("{\"city\":\"Paris\"}"));
    assertThat(call.at("/choices/0/finish_reason").asText()).isEqualTo("tool_calls");
    JsonNode other = JSON.readTree(post("/v1/chat/completions", """
        {"model":"tokenmeter-sim","messages":[{"role":"user","content":"hello"}]}""").body());
    assertThat(other.at("/choices/0/message/content").asText()).isEqualTo("It is sunny.");
  }

  @Test
  void aQueuedRateLimitIsAnsweredOnceWithRetryAfterInTheApisErrorShape() throws Exception {
    sim.enqueue(Answer.rateLimited(Duration.ofMillis(1500)));
    sim.answer(Answer.text("ok"));
    String body = """
        {"model":"tokenmeter-sim","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}""";
    HttpResponse<String> first = post("/v1/chat/completions", body);
    assertThat(first.statusCode()).isEqualTo(429);
    assertThat(first.headers().firstValue("retry-after")).hasValue("2");
    assertThat(JSON.readTree(first.body()).at("/error/type").asText()).isEqualTo("RateLimitError");
    HttpResponse<String> second = post("/v1/chat/completions", body);
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(sim.received()).extracting(ReceivedRequest::status).containsExactly(429, 200);
  }

  @Test
  void everyApiCarriesTheSameScriptedText() throws Exception {
    sim.answer(Answer.json("{\"city\": \"Paris\", \"ok\": true}"));
    JsonNode anthropic = JSON.readTree(post("/v1/messages", """
        {"model":"tokenmeter-sim","max_tokens":64,"messages":[{"role":"user","content":"json please"}]}""").body());
    assertThat(anthropic.at("/content/0/text").asText()).isEqualTo("{\"city\":\"Paris\",\"ok\":true}");
    JsonNode ollama = JSON.readTree(post("/api/chat", """
        {"model":"tokenmeter-sim","stream":false,"messages":[{"role":"user","content":"json please"}]}""").body());
    assertThat(ollama.at("/message/content").asText()).isEqualTo("{\"city\":\"Paris\",\"ok\":true}");
    JsonNode gemini = JSON.readTree(post("/v1beta/models/tokenmeter-sim:generateContent", """
        {"contents":[{"role":"user","parts":[{"text":"json please"}]}]}""").body());
    assertThat(gemini.at("/candidates/0/content/parts/0/text").asText()).isEqualTo("{\"city\":\"Paris\",\"ok\":true}");
    JsonNode tgi = JSON.readTree(post("/generate", """
        {"inputs":"json please","parameters":{"max_new_tokens":64}}""").body());
    assertThat(tgi.path("generated_text").asText()).isEqualTo("{\"city\":\"Paris\",\"ok\":true}");
    assertThat(sim.received()).extracting(ReceivedRequest::api)
        .containsExactly(Api.ANTHROPIC, Api.OLLAMA, Api.GEMINI, Api.TGI);
    assertThat(sim.received()).extracting(ReceivedRequest::lastUserText).containsOnly("json please");
  }

  @Test
  void aRefusalTravelsInOpenAisRefusalFieldStreamedOrNot() throws Exception {
    sim.answer(Answer.refusal("I can't help with that."));
    String body = """
        {"model":"tokenmeter-sim","stream":%s,"messages":[{"role":"user","content":"something bad"}]}""";
    JsonNode whole = JSON.readTree(post("/v1/chat/completions", body.formatted("false")).body());
    assertThat(whole.at("/choices/0/message/refusal").asText()).isEqualTo("I can't help with that.");
    assertThat(whole.at("/choices/0/message/content").isNull()).isTrue();
    StringBuilder refusal = new StringBuilder();
    for (JsonNode c : events(post("/v1/chat/completions", body.formatted("true")).body())) {
      JsonNode delta = c.path("choices").path(0).path("delta");
      assertThat(delta.path("content").asText("")).isEmpty();
      refusal.append(delta.path("refusal").asText(""));
    }
    assertThat(refusal).hasToString("I can't help with that.");
    try (Simulator anthropic = Simulator.builder().api(Api.ANTHROPIC).start()) {
      assertThatThrownBy(() -> anthropic.answer(Answer.refusal("no")))
          .hasMessageContaining("cannot be served on the ANTHROPIC API");
    }
  }

  @Test
  void anAnswerTheChosenApiCannotCarryIsRefusedWhenScripted() {
    try (Simulator ollama = Simulator.builder().api(Api.OLLAMA).start()) {
      assertThatThrownBy(() -> ollama.answer(Answer.toolCall("get_weather", "{}")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cannot be served on the OLLAMA API")
          .hasMessageContaining("Answer.text");
      assertThat(ollama.baseUrl()).isEqualTo(ollama.url());
    }
  }

  @Test
  void badInputFailsAtStartWithOneLineNamingTheFix() throws IOException {
    assertThatThrownBy(() -> Simulator.builder().preset("no-such-model", "h100-sxm").start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown model 'no-such-model'")
        .hasMessageContaining("presets:");
    assertThatThrownBy(() -> Simulator.builder().faults("http_429=2").start())
        .hasMessageContaining("Simulator faults");
    assertThatThrownBy(() -> Answer.json("{not json"))
        .hasMessageContaining("not valid JSON");
    try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(() -> Simulator.builder().port(taken.getLocalPort()).start())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("port " + taken.getLocalPort() + " on 127.0.0.1 is in use")
          .hasMessageContaining("port(0)");
    }
  }

  @Test
  void aPresetRunsTheEngineModel() {
    try (Simulator preset = Simulator.builder().preset("llama-3.1-8b", "h100-sxm").start()) {
      assertThat(preset.model()).isNotEqualTo("tokenmeter-sim");
      assertThat(preset.baseUrl()).isEqualTo(preset.url() + "/v1");
    }
  }

  /**
   * parallelToolCalls(2): the simulator's own answer to a request with tools carries 2 calls, the
   * tools in turn, each with its own id; parallel_tool_calls false gets one. Out of range: refused.
   */
  @Test
  void parallelToolCallsMakeTheSimulatorsOwnAnswerCarrySeveralCalls() throws Exception {
    try (Simulator two = Simulator.builder().ttft(Duration.ofMillis(1)).itl(Duration.ofMillis(0)).parallelToolCalls(2)
        .start()) {
      String request = "{\"model\":\"tokenmeter-sim\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a\"}},"
          + "{\"type\":\"function\",\"function\":{\"name\":\"b\"}}],\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]";
      JsonNode calls = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(two.url() + "/v1/chat/completions"))
          .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(request + "}")).build(),
          HttpResponse.BodyHandlers.ofString()).body()).at("/choices/0/message/tool_calls");
      assertThat(calls).hasSize(2);
      assertThat(calls.get(0).at("/function/name").asText()).isEqualTo("a");
      assertThat(calls.get(1).at("/function/name").asText()).isEqualTo("b");
      assertThat(calls.get(0).path("id").asText()).isNotEqualTo(calls.get(1).path("id").asText());
      JsonNode one = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(two.url() + "/v1/chat/completions"))
          .header("content-type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(request + ",\"parallel_tool_calls\":false}")).build(),
          HttpResponse.BodyHandlers.ofString()).body()).at("/choices/0/message/tool_calls");
      assertThat(one).hasSize(1);
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Simulator.builder().parallelToolCalls(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("parallelToolCalls");
  }

  private static HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create(sim.url() + path))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static List<JsonNode> events(String sse) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : sse.split("\n")) {
      if (line.startsWith("data: ") && !line.equals("data: [DONE]")) {
        out.add(JSON.readTree(line.substring(6)));
      }
    }
    return out;
  }
}
