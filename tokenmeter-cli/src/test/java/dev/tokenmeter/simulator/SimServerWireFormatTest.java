package dev.tokenmeter.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The bytes on the wire, against vLLM's OpenAI server format, over real sockets. */
@Timeout(20)
class SimServerWireFormatTest {

  private static final String CHAT = "/v1/chat/completions";
  private static final String COMPLETIONS = "/v1/completions";
  private static final Pattern CHAT_ID = Pattern.compile("\"id\":\"(chatcmpl-[0-9a-f]{32})\"");
  private static final Pattern CMPL_ID = Pattern.compile("\"id\":\"(cmpl-[0-9a-f]{32})\"");
  private static final Pattern CONTENT = Pattern.compile("\"content\":\"((?:[^\"\\\\]|\\\\.)*)\"");
  // "hello there": 11 code points -> 3 tokens; chat adds 4 per message and 3 of priming.
  private static final int CHAT_PROMPT_TOKENS = 3 + 4 + 3;
  private static final String HEAD = "\"created\":1700000000,\"model\":\"tokenmeter-sim\",";

  private final List<EmissionRecord> records = new CopyOnWriteArrayList<>();
  private SimServer server;
  private TestClient client;

  @BeforeEach
  void start() {
    start(base());
  }

  /** Zero delay, natural length 3. */
  private static SimConfig.Builder base() {
    return SimConfig.builder().timing(TimingModel.zero()).outputLengths(OutputLengths.fixed(3));
  }

  private SimServer start(SimConfig.Builder builder) {
    if (server != null) {
      close();
    }
    server =
        SimServer.start(
            builder
                .wallClock(InstantSource.fixed(Instant.ofEpochSecond(1_700_000_000L)))
                .groundTruthSink(records::add)
                .build());
    client = new TestClient(server);
    return server;
  }

  @AfterEach
  void close() {
    client.close();
    server.close();
  }

  private static String chatBody(String extra) {
    return "{\"model\":\"tokenmeter-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"hello"
        + " there\"}]" + extra + "}";
  }

  private static String id(Pattern pattern, String json) {
    Matcher m = pattern.matcher(json);
    assertThat(m.find()).as("id in %s", json).isTrue();
    return m.group(1);
  }

  @Test
  void chatStreamIsVllmFrameForFrame() throws Exception {
    TestClient.SseResponse r =
        client.stream(
            CHAT,
            chatBody(
                ",\"max_tokens\":5,\"ignore_eos\":true,\"stream\":true,"
                    + "\"stream_options\":{\"include_usage\":true}"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.response().headers().firstValue("content-type"))
        .hasValue("text/event-stream; charset=utf-8");
    assertThat(r.response().headers().firstValue("transfer-encoding")).hasValue("chunked");
    List<String> data = r.data();
    assertThat(data).hasSize(1 + 5 + 1 + 1); // role, 5 tokens, usage, [DONE]
    String id = id(CHAT_ID, data.get(0));
    String head = "{\"id\":\"" + id + "\",\"object\":\"chat.completion.chunk\"," + HEAD;
    assertThat(data.get(0))
        .isEqualTo(
            head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                + "\"logprobs\":null,\"finish_reason\":null}]}");
    for (int i = 1; i <= 4; i++) {
      String content = content(data.get(i));
      assertThat(data.get(i))
          .isEqualTo(
              head + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + content + "\"},"
                  + "\"logprobs\":null,\"finish_reason\":null}]}");
    }
    assertThat(data.get(5))
        .isEqualTo(
            head + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + content(data.get(5))
                + "\"},\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}]}");
    assertThat(data.get(6))
        .isEqualTo(
            head + "\"choices\":[],\"usage\":{\"prompt_tokens\":" + CHAT_PROMPT_TOKENS
                + ",\"total_tokens\":" + (CHAT_PROMPT_TOKENS + 5) + ",\"completion_tokens\":5,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":0}}}");
    assertThat(data.get(7)).isEqualTo("[DONE]");
    assertThat(r.failure()).isNull();
  }

  @Test
  void completionsStreamIsVllmFrameForFrame() throws Exception {
    TestClient.SseResponse r =
        client.stream(
            COMPLETIONS,
            "{\"prompt\":\"hello there\",\"max_tokens\":3,\"ignore_eos\":true,\"stream\":true,"
                + "\"stream_options\":{\"include_usage\":true}}");

    List<String> data = r.data();
    assertThat(data).hasSize(3 + 2);
    String id = id(CMPL_ID, data.get(0));
    String head = "{\"id\":\"" + id + "\",\"object\":\"text_completion\"," + HEAD;
    Pattern text = Pattern.compile("\"text\":\"((?:[^\"\\\\]|\\\\.)*)\"");
    for (int i = 0; i < 3; i++) {
      Matcher m = text.matcher(data.get(i));
      assertThat(m.find()).isTrue();
      String finish = i == 2 ? "\"length\"" : "null";
      assertThat(data.get(i))
          .isEqualTo(
              head + "\"choices\":[{\"index\":0,\"text\":\"" + m.group(1) + "\",\"logprobs\":null,"
                  + "\"finish_reason\":" + finish + ",\"stop_reason\":null}],\"usage\":null}");
    }
    assertThat(data.get(3))
        .isEqualTo(
            head + "\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"total_tokens\":6,"
                + "\"completion_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":0}}}");
    assertThat(data.get(4)).isEqualTo("[DONE]");
  }

  @Test
  void naturalStopEndsWithAnEmptyEosChunkCountedInUsage() throws Exception {
    // Natural length 3 < max_tokens 10: two words, then EOS as "content":"" with "stop".
    TestClient.SseResponse r =
        client.stream(
            CHAT,
            chatBody(",\"max_tokens\":10,\"stream\":true,\"stream_options\":{\"include_usage\":true}"));

    List<String> data = r.data();
    assertThat(data).hasSize(1 + 3 + 2);
    assertThat(content(data.get(1))).isNotEmpty();
    assertThat(content(data.get(2))).isNotEmpty();
    assertThat(data.get(3))
        .contains("\"delta\":{\"content\":\"\"},\"logprobs\":null,\"finish_reason\":\"stop\"");
    assertThat(data.get(4)).contains("\"completion_tokens\":3,");
    assertThat(records).singleElement().satisfies(rec -> {
      assertThat(rec.ending()).isEqualTo(EmissionRecord.Ending.STOP);
      assertThat(rec.tokenCount()).isEqualTo(3);
    });
  }

  @Test
  void withoutEosChunkTheLastWordCarriesStop() throws Exception {
    start(base().eosChunk(false));
    List<String> data = client.stream(CHAT, chatBody(",\"max_tokens\":10,\"stream\":true")).data();

    assertThat(data).hasSize(1 + 3 + 1);
    assertThat(content(data.get(3))).isNotEmpty();
    assertThat(data.get(3)).contains("\"finish_reason\":\"stop\"");
  }

  @Test
  void roleChunkCanLeaveWithTheHeaders() throws Exception {
    start(
        base()
            .roleChunkWithHeaders(true)
            .timing(TimingModel.fixed(150_000_000L, 0)));
    TestClient.SseResponse r = client.stream(CHAT, chatBody(",\"stream\":true"));
    // The role chunk comes at the headers, the first word 150 ms later.
    long gapNanos = r.events().get(1).arrivalNanos() - r.events().get(0).arrivalNanos();
    assertThat(gapNanos).isGreaterThan(100_000_000L);
    assertThat(r.data().get(0)).contains("\"role\":\"assistant\"");
  }

  @Test
  void lengthsFollowMaxTokensMinTokensAndDefaults() throws Exception {
    start(base().outputLengths(OutputLengths.fixed(2)).defaultMaxTokens(7));
    // No max_tokens, natural 2: stops at 2. ignore_eos without max_tokens: the default, 7.
    assertThat(completionTokens(chatBody(""))).isEqualTo(2);
    assertThat(completionTokens(chatBody(",\"ignore_eos\":true"))).isEqualTo(7);
    // min_tokens 5 pushes EOS to token 6; max_completion_tokens wins over max_tokens.
    assertThat(completionTokens(chatBody(",\"min_tokens\":5,\"max_tokens\":10"))).isEqualTo(6);
    assertThat(completionTokens(chatBody(",\"max_tokens\":1,\"max_completion_tokens\":4,"
        + "\"ignore_eos\":true"))).isEqualTo(4);
    assertThat(records)
        .extracting(EmissionRecord::finishReason)
        .containsExactly("stop", "length", "stop", "length");
  }

  private int completionTokens(String body) throws Exception {
    HttpResponse<String> r = client.post(CHAT, body);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    Matcher m = Pattern.compile("\"completion_tokens\":(\\d+)").matcher(r.body());
    assertThat(m.find()).isTrue();
    return Integer.parseInt(m.group(1));
  }

  @Test
  void nonStreamedChatIsOneChatCompletionObject() throws Exception {
    HttpResponse<String> r = client.post(CHAT, chatBody(",\"max_tokens\":4,\"ignore_eos\":true"));

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    String id = id(CHAT_ID, r.body());
    String text = content(r.body());
    assertThat(r.body())
        .isEqualTo(
            "{\"id\":\"" + id + "\",\"object\":\"chat.completion\"," + HEAD + "\"choices\":[{"
                + "\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + text + "\","
                + "\"refusal\":null,\"annotations\":null,\"audio\":null,\"function_call\":null,"
                + "\"tool_calls\":[],\"reasoning_content\":null},\"logprobs\":null,"
                + "\"finish_reason\":\"length\",\"stop_reason\":null}],\"service_tier\":null,"
                + "\"system_fingerprint\":null,\"usage\":{\"prompt_tokens\":10,\"total_tokens\":14,"
                + "\"completion_tokens\":4,\"prompt_tokens_details\":{\"cached_tokens\":0}},"
                + "\"prompt_logprobs\":null,\"kv_transfer_params\":null}");
  }

  @Test
  void nonStreamedCompletionIsOneTextCompletionObject() throws Exception {
    HttpResponse<String> r =
        client.post(COMPLETIONS, "{\"prompt\":[1,2,3,4,5],\"max_tokens\":2,\"ignore_eos\":true}");

    String id = id(CMPL_ID, r.body());
    Matcher text = Pattern.compile("\"text\":\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(r.body());
    assertThat(text.find()).isTrue();
    assertThat(r.body())
        .isEqualTo(
            "{\"id\":\"" + id + "\",\"object\":\"text_completion\"," + HEAD + "\"choices\":[{"
                + "\"index\":0,\"text\":\"" + text.group(1) + "\",\"logprobs\":null,"
                + "\"finish_reason\":\"length\",\"stop_reason\":null,\"prompt_logprobs\":null}],"
                + "\"usage\":{\"prompt_tokens\":5,\"total_tokens\":7,\"completion_tokens\":2,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":0}},\"kv_transfer_params\":null}");
  }

  @Test
  void modelsAndHealth() throws Exception {
    HttpResponse<String> models = client.get("/v1/models");
    assertThat(models.statusCode()).isEqualTo(200);
    assertThat(models.body())
        .startsWith(
            "{\"object\":\"list\",\"data\":[{\"id\":\"tokenmeter-sim\",\"object\":\"model\","
                + "\"created\":1700000000,\"owned_by\":\"vllm\",\"root\":\"tokenmeter-sim\","
                + "\"parent\":null,\"max_model_len\":32768,\"permission\":[{\"id\":\"modelperm-");
    HttpResponse<String> health = client.get("/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).isEmpty();
  }

  @Test
  void errorsHaveVllmShapes() throws Exception {
    assertError(client.post(CHAT, "{not json"), 400, "BadRequestError", "Invalid JSON body");
    assertError(client.post(CHAT, "{\"model\":\"tokenmeter-sim\"}"), 400, "BadRequestError",
        "messages");
    assertError(client.post(CHAT, chatBody(",\"n\":2")), 400, "BadRequestError", "n must be 1");
    assertError(client.post(CHAT, chatBody(",\"stream_options\":{\"include_usage\":true}")), 400,
        "BadRequestError", "Stream options can only be defined when `stream=True`.");
    assertError(client.post(CHAT, chatBody(",\"max_tokens\":0")), 400, "BadRequestError",
        "max_tokens must be an integer >= 1");
    assertError(client.post(CHAT, chatBody(",\"max_tokens\":40000")), 400, "BadRequestError",
        "This model's maximum context length is 32768 tokens. However, you requested 40010");
    assertError(client.post(COMPLETIONS, "{\"prompt\":[\"a\",\"b\"]}"), 400, "BadRequestError",
        "only one prompt");
    HttpResponse<String> unknownModel =
        client.post(CHAT, "{\"model\":\"gpt-9\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
    assertThat(unknownModel.statusCode()).isEqualTo(404);
    assertThat(unknownModel.body())
        .isEqualTo(
            "{\"error\":{\"message\":\"The model `gpt-9` does not exist.\",\"type\":\"NotFoundError\","
                + "\"param\":null,\"code\":404}}");
    HttpResponse<String> unknownPath = client.get("/v2/nothing");
    assertThat(unknownPath.statusCode()).isEqualTo(404);
    assertThat(unknownPath.body()).isEqualTo("{\"detail\":\"Not Found\"}");
    HttpResponse<String> wrongMethod = client.get(CHAT);
    assertThat(wrongMethod.statusCode()).isEqualTo(405);
    assertThat(records).isEmpty(); // rejected requests generate nothing
  }

  private static void assertError(HttpResponse<String> r, int code, String type, String message) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(code);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(r.body())
        .startsWith("{\"error\":{\"message\":\"")
        .contains(message)
        .endsWith("\",\"type\":\"" + type + "\",\"param\":null,\"code\":" + code + "}}");
  }

  @Test
  void requestIdIsEchoedAndRecorded() throws Exception {
    TestClient.SseResponse r = client.stream(CHAT, chatBody(",\"stream\":true"), "client-42");

    assertThat(r.response().headers().firstValue("x-request-id")).hasValue("client-42");
    assertThat(records).singleElement().satisfies(rec -> {
      assertThat(rec.clientRequestId()).isEqualTo("client-42");
      assertThat(rec.serverRequestId()).isEqualTo(1);
    });
  }

  @Test
  void textIsDeterministicBySeedAndRequestAndMadeOfVocabularyWords() throws Exception {
    String body = chatBody(",\"max_tokens\":30,\"ignore_eos\":true");
    String first = content(client.post(CHAT, body).body());
    String second = content(client.post(CHAT, body).body());
    start(base());
    String firstAgain = content(client.post(CHAT, body).body());
    String seeded = content(client.post(CHAT, chatBody(",\"max_tokens\":30,\"seed\":7")).body());
    String seededAgain = content(client.post(CHAT, chatBody(",\"max_tokens\":30,\"seed\":7")).body());

    assertThat(firstAgain).isEqualTo(first);
    assertThat(second).isNotEqualTo(first);
    assertThat(seededAgain).isEqualTo(seeded);
    List<String> words = java.util.stream.IntStream.range(0, Vocabulary.size())
        .mapToObj(i -> new String(Vocabulary.jsonBytes(i), java.nio.charset.StandardCharsets.UTF_8))
        .toList();
    String rest = first;
    int tokens = 0;
    while (!rest.isEmpty()) {
      String r = rest;
      String word = words.stream().filter(r::startsWith).max(java.util.Comparator.comparingInt(String::length)).orElseThrow();
      rest = rest.substring(word.length());
      tokens++;
    }
    assertThat(tokens).isBetween(20, 30); // greedy split may merge e.g. " the" + "..." prefixes
  }

  private static String content(String json) {
    Matcher m = CONTENT.matcher(json);
    assertThat(m.find()).as("content in %s", json).isTrue();
    return m.group(1);
  }
}
