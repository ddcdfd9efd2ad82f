package dev.tokenmeter.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The other APIs' routes of {@code sim serve}: listings, whole bodies, and refusals in each API's error shape. */
class SimServerApisTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String USER = "[{\"role\":\"user\",\"content\":\"hello there\"}]";
  private SimServer server;
  private TestClient client;

  @BeforeEach
  void start() {
    server = SimServer.start(SimConfig.builder().timing(TimingModel.zero()).outputLengths(OutputLengths.fixed(3))
        .wallClock(InstantSource.fixed(Instant.ofEpochSecond(1_700_000_000L))).build());
    client = new TestClient(server);
  }

  @AfterEach
  void close() {
    client.close();
    server.close();
  }

  private JsonNode ok(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private void refused(HttpResponse<String> r, int status, String body) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.body()).isEqualTo(body);
  }

  @Test
  void listingsOfGeminiOllamaAndTgi() throws Exception {
    assertThat(ok(client.get("/v1beta/models")).at("/models/0/name").asText()).isEqualTo("models/tokenmeter-sim");
    assertThat(ok(client.get("/api/tags")).at("/models/0/name").asText()).isEqualTo("tokenmeter-sim");
    assertThat(ok(client.get("/info")).path("model_id").asText()).isEqualTo("tokenmeter-sim");
    assertThat(client.get("/api/nothing").statusCode()).isEqualTo(404);
  }

  @Test
  void wholeBodiesOfEveryApi() throws Exception {
    JsonNode m = ok(client.post("/v1/messages", "{\"model\":\"tokenmeter-sim\",\"max_tokens\":10,\"system\":"
        + "[{\"type\":\"text\",\"text\":\"Be brief.\"}],\"messages\":" + USER + "}"));
    assertThat(m.path("stop_reason").asText()).isEqualTo("end_turn");
    assertThat(m.at("/usage/output_tokens").asInt()).isEqualTo(3);
    JsonNode r = ok(client.post("/v1/responses", "{\"model\":\"tokenmeter-sim\",\"instructions\":\"Be brief.\","
        + "\"input\":\"hi\",\"max_output_tokens\":2}"));
    assertThat(r.path("status").asText()).isEqualTo("incomplete");
    assertThat(r.at("/usage/output_tokens").asInt()).isEqualTo(2);
    JsonNode g = ok(client.post("/v1beta/models/tokenmeter-sim:generateContent",
        "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}],\"generationConfig\":{\"maxOutputTokens\":5}}"));
    assertThat(g.at("/candidates/0/finishReason").asText()).isEqualTo("STOP");
    assertThat(g.at("/usageMetadata/candidatesTokenCount").asInt()).isEqualTo(3);
    JsonNode t = ok(client.post("/generate", "{\"inputs\":\"hi\",\"parameters\":{\"max_new_tokens\":2}}"));
    assertThat(t.at("/details/finish_reason").asText()).isEqualTo("length");
    JsonNode o = ok(client.post("/api/generate", "{\"model\":\"tokenmeter-sim\",\"system\":\"Be brief.\",\"prompt\":\"hi\","
        + "\"stream\":false,\"seed\":3}"));
    assertThat(o.path("done").asBoolean()).isTrue();
    assertThat(o.path("eval_count").asInt()).isEqualTo(3);
    HttpResponse<String> chat = client.post("/api/chat", "{\"model\":\"tokenmeter-sim\",\"messages\":" + USER + "}");
    assertThat(chat.headers().firstValue("content-type")).hasValue("application/x-ndjson");
    assertThat(chat.body().lines().toList()).hasSize(3).last().asString().contains("\"done\":true");
  }

  @Test
  void refusalsComeInEachApisErrorShape() throws Exception {
    refused(client.post("/v1/messages", "{\"messages\":" + USER + "}"), 400,
        "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"max_tokens: Field required\"}}");
    refused(client.post("/v1/messages", "{\"model\":\"other\",\"max_tokens\":5,\"messages\":" + USER + "}"), 404,
        "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"The model `other` does not exist.\"}}");
    refused(client.get("/v1/messages"), 405,
        "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Method Not Allowed\"}}");
    refused(client.post("/v1beta/models/tokenmeter-sim:streamGenerateContent", "{}"), 400,
        "{\"error\":{\"code\":400,\"message\":\"the simulator streams Gemini as server-sent events only: add ?alt=sse\","
            + "\"status\":\"INVALID_ARGUMENT\"}}");
    refused(client.post("/v1beta/models/nope:generateContent", "{\"contents\":[{\"parts\":[{\"text\":\"a\"}]}]}"), 404,
        "{\"error\":{\"code\":404,\"message\":\"The model `nope` does not exist.\",\"status\":\"NOT_FOUND\"}}");
    refused(client.post("/generate_stream", "{\"parameters\":{}}"), 400,
        "{\"error\":\"inputs: field required\",\"error_type\":\"validation\"}");
    refused(client.post("/api/chat", "{\"model\":\"tokenmeter-sim\"}"), 400,
        "{\"error\":\"messages: a non-empty array is required\"}");
    refused(client.post("/api/chat", "{\"messages\":[{\"content\":\"x\"}]}"), 400,
        "{\"error\":\"messages: each message must be an object with a string role\"}");
    refused(client.post("/v1/responses", "[1]"), 400,
        "{\"error\":{\"message\":\"Request body must be a JSON object\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}}");
    refused(client.post("/api/generate", "{not json"), 400,
        "{\"error\":\"Invalid JSON body: Unexpected character ('n' (code 110)): was expecting double-quote to start field name\"}");
  }
}
