package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.client.Api;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.simulator.EngineTiming;
import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.SimServer;
import dev.tokenmeter.simulator.TimingModel;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code sim serve} under a conversation over real sockets: a growing history resent turn by turn
 * is served from the prefix cache, and each API reports it in its own usage field, as the ground
 * truth records it; a client that hangs up frees its engine slot at once.
 */
@Timeout(60)
class SimConversationIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  /** About 800 tokens at 4 characters a token: a long shared system prompt. */
  private static final String SYSTEM = "You are a careful assistant. ".repeat(110);
  private static final int TURNS = 5;

  private record Usage(int prompt, int cached) {}

  /**
   * Turn k + 1 resends turn k's prompt plus an answer and a question: all of turn k's prompt but
   * its last block and the chat framing that closes it (a few tokens) is found in the cache.
   */
  @ParameterizedTest(name = "{0} stream={1} engine={2}")
  @CsvSource({
    "chat, true, false", "chat, false, false", "anthropic, true, false", "anthropic, false, false",
    "responses, false, false", "gemini, true, false", "gemini, false, false",
    "chat, true, true", "anthropic, true, true", "gemini, false, true"
  })
  void cachedTokensGrowOverAConversationInEveryApi(String api, boolean stream, boolean engine) throws Exception {
    Queue<EmissionRecord> truth = new ConcurrentLinkedQueue<>();
    SimConfig.Builder config = SimConfig.builder().groundTruthSink(truth::add).defaultMaxTokens(16);
    if (engine) {
      EngineTiming timing =
          new EngineTiming(EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm")), Ticker.system());
      config.timing(timing).maxModelLen(timing.maxModelLen());
    } else {
      config.timing(TimingModel.zero());
    }
    List<Usage> usages = new ArrayList<>();
    try (SimServer server = SimServer.start(config.build())) {
      List<String[]> history = new ArrayList<>();
      for (int turn = 1; turn <= TURNS; turn++) {
        history.add(new String[] {"user", ("Question " + turn + ": what about the next step? ").repeat(8)});
        usages.add(send(server.baseUrl(), api, stream, history));
        history.add(new String[] {"assistant", ("Answer " + turn + " covers it. ").repeat(10)});
      }
    }
    assertThat(usages.getFirst().cached()).as("a fresh server has nothing cached").isZero();
    for (int k = 1; k < TURNS; k++) {
      Usage previous = usages.get(k - 1);
      Usage now = usages.get(k);
      assertThat(now.prompt()).isGreaterThan(previous.prompt());
      assertThat(now.cached()).as("turn %d: %s", k + 1, usages)
          .isGreaterThanOrEqualTo(previous.prompt() - 16 - 8)
          .isLessThan(now.prompt())
          .isEqualTo(now.cached() / 16 * 16);
    }
    List<EmissionRecord> records = new ArrayList<>(truth);
    assertThat(records).hasSize(TURNS);
    records.sort((a, b) -> Long.compare(a.serverRequestId(), b.serverRequestId()));
    for (int k = 0; k < TURNS; k++) {
      assertThat(records.get(k).cachedPromptTokens()).isEqualTo(usages.get(k).cached());
      assertThat(records.get(k).request().promptTokens()).isEqualTo(usages.get(k).prompt());
    }
  }

  /**
   * One sequence at a time (max-num-seqs 1): a 4,000-token answer holds the engine for about 30
   * s, so a second request waits behind it, unless the first client hangs up and the engine frees
   * its slot, as it must.
   */
  @Test
  void aClientThatHangsUpFreesItsEngineSlot() throws Exception {
    EngineTiming timing = new EngineTiming(
        EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm")).withLimits(1, 8192), Ticker.system());
    Queue<EmissionRecord> truth = new ConcurrentLinkedQueue<>();
    try (SimServer server = SimServer.start(
        SimConfig.builder().timing(timing).maxModelLen(timing.maxModelLen()).groundTruthSink(truth::add).build())) {
      String longBody = "{\"messages\":[{\"role\":\"user\",\"content\":\"write a book\"}],\"max_tokens\":4000,"
          + "\"ignore_eos\":true,\"stream\":true}";
      try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
        socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Request-Id: long\r\n"
            + "Content-Type: application/json\r\nContent-Length: " + longBody.length() + "\r\n\r\n" + longBody)
            .getBytes(StandardCharsets.US_ASCII));
        StringBuilder seen = new StringBuilder();
        byte[] buffer = new byte[4096];
        while (seen.toString().split("data: ", -1).length < 4) { // role chunk and two tokens: streaming
          int n = socket.getInputStream().read(buffer);
          assertThat(n).isPositive();
          seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
        }
        assertThat(timing.running()).isEqualTo(1);
      } // hang up mid-answer
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (truth.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      EmissionRecord cut = truth.poll();
      assertThat(cut).isNotNull();
      assertThat(cut.ending()).isEqualTo(EmissionRecord.Ending.CLIENT_DISCONNECT);
      assertThat(cut.tokenCount()).isBetween(1, 3_999);
      assertThat(timing.running() + timing.waiting()).as("the engine dropped the sequence").isZero();

      long sent = System.nanoTime();
      HttpResponse<String> next = HTTP.send(
          HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/chat/completions"))
              .POST(HttpRequest.BodyPublishers.ofString(
                  "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4,\"ignore_eos\":true}"))
              .header("Content-Type", "application/json").build(),
          HttpResponse.BodyHandlers.ofString());
      long tookMillis = (System.nanoTime() - sent) / 1_000_000;
      assertThat(next.statusCode()).isEqualTo(200);
      // about 4 iterations of 8 ms; waiting behind the cut answer would be about 30 s
      assertThat(tookMillis).isLessThan(5_000);
    }
  }

  /**
   * A request with tools and a tool choice that demands a call gets a streamed (or whole) tool call
   * in its API's format, which the client's decoders read to the end: finish reason tool_calls,
   * the arguments' tokens counted as output from the usage, as the server generated them.
   */
  @ParameterizedTest(name = "{0} stream={1}")
  @CsvSource({"CHAT, true", "CHAT, false", "ANTHROPIC, true", "ANTHROPIC, false"})
  void toolCallsRoundTripThroughTheClientDecoders(Api api, boolean stream) {
    String schema = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
        + "\"unit\":{\"type\":\"string\",\"enum\":[\"celsius\",\"fahrenheit\"]},\"days\":{\"type\":\"integer\"}},"
        + "\"required\":[\"city\",\"unit\",\"days\"]}";
    String tools = api == Api.CHAT
        ? "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":" + schema
            + "}}],\"tool_choice\":\"required\"}"
        : "{\"tools\":[{\"name\":\"get_weather\",\"input_schema\":" + schema + "}],\"tool_choice\":{\"type\":\"any\"}}";
    List<StageRun.Joined> joined;
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 2))) {
      StageRun run = StageKit.run(StageKit.stage(sim).api(api).stream(stream).extraBody(tools).closed(2).requests(4)
          .maxTokens(64));
      sim.awaitAllRecords(3_000);
      joined = run.join(sim);
    }
    // {"city":"example","unit":"celsius","days":1}: 44 characters, 11 tokens of 4
    assertThat(joined).hasSize(4);
    for (StageRun.Joined j : joined) {
      RequestMetrics m = j.metrics();
      assertThat(j.truth().ending()).isEqualTo(EmissionRecord.Ending.TOOL_CALLS);
      assertThat(j.truth().tokenCount()).isEqualTo(11);
      assertThat(j.timeline().outcome()).as(j.describe()).isEqualTo(new Outcome.Completed("tool_calls"));
      assertThat(m.outputTokens()).isEqualTo(11);
      assertThat(m.outputTokenSource()).isEqualTo(TokenCountSource.USAGE);
      if (stream) {
        assertThat(j.timeline().chunkCount()).as(j.describe()).isGreaterThanOrEqualTo(11);
      }
    }
  }

  private static Usage send(String baseUrl, String api, boolean stream, List<String[]> history) throws Exception {
    ObjectNode body = JSON.createObjectNode();
    String path;
    ArrayNode messages = JSON.createArrayNode();
    switch (api) {
      case "chat" -> {
        path = "/v1/chat/completions";
        messages.addObject().put("role", "system").put("content", SYSTEM);
        history.forEach(m -> messages.addObject().put("role", m[0]).put("content", m[1]));
        body.set("messages", messages);
        body.put("stream", stream);
        if (stream) {
          body.putObject("stream_options").put("include_usage", true);
        }
      }
      case "anthropic" -> {
        path = "/v1/messages";
        body.put("system", SYSTEM).put("max_tokens", 16).put("stream", stream);
        history.forEach(m -> messages.addObject().put("role", m[0]).put("content", m[1]));
        body.set("messages", messages);
      }
      case "responses" -> {
        path = "/v1/responses";
        body.put("instructions", SYSTEM).put("stream", stream);
        history.forEach(m -> messages.addObject().put("role", m[0]).put("content", m[1]));
        body.set("input", messages);
      }
      case "gemini" -> {
        path = "/v1beta/models/tokenmeter-sim:" + (stream ? "streamGenerateContent?alt=sse" : "generateContent");
        body.putObject("systemInstruction").putArray("parts").addObject().put("text", SYSTEM);
        history.forEach(m -> messages.addObject().put("role", m[0].equals("assistant") ? "model" : "user")
            .putArray("parts").addObject().put("text", m[1]));
        body.set("contents", messages);
      }
      default -> throw new IllegalArgumentException(api);
    }
    HttpResponse<String> r = HTTP.send(
        HttpRequest.newBuilder(URI.create(baseUrl + path)).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode last = null;
    if (stream) {
      for (String line : r.body().split("\r?\n")) {
        if (line.startsWith("data: {")) {
          JsonNode event = JSON.readTree(line.substring(6));
          if (!usageOf(api, event).isMissingNode()) {
            last = event; // the last usage seen is the final one (Anthropic's message_delta, Gemini's last chunk)
          }
        }
      }
    } else {
      last = JSON.readTree(r.body());
    }
    assertThat(last).as(r.body()).isNotNull();
    JsonNode u = usageOf(api, last);
    return switch (api) {
      case "chat" -> new Usage(u.get("prompt_tokens").asInt(), u.path("prompt_tokens_details").path("cached_tokens").asInt());
      case "anthropic" -> {
        int cached = u.get("cache_read_input_tokens").asInt();
        yield new Usage(u.get("input_tokens").asInt() + cached + u.get("cache_creation_input_tokens").asInt(), cached);
      }
      case "responses" -> new Usage(u.get("input_tokens").asInt(), u.path("input_tokens_details").path("cached_tokens").asInt());
      default -> new Usage(u.get("promptTokenCount").asInt(), u.path("cachedContentTokenCount").asInt(0));
    };
  }

  private static JsonNode usageOf(String api, JsonNode event) {
    return switch (api) {
      case "chat" -> event.path("usage").isObject() ? event.path("usage") : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
      case "anthropic" -> event.has("usage") ? event.path("usage")
          : event.path("message").path("usage").isObject() ? event.path("message").path("usage")
          : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
      case "responses" -> event.path("usage").isObject() ? event.path("usage")
          : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
      default -> event.path("usageMetadata").isObject() ? event.path("usageMetadata")
          : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    };
  }
}
