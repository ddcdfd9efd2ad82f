package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.client.Api;
import org.junit.jupiter.api.Test;

/** Which API a path carries, and what a request may make its server generate (the budget's worst case). */
class RouteTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode body(String json) throws Exception {
    return JSON.readTree(json);
  }

  @Test
  void pathsMapToTheirApis() {
    assertThat(Route.of("/v1/chat/completions")).isEqualTo(Route.CHAT);
    assertThat(Route.of("/v1/completions")).isEqualTo(Route.COMPLETIONS);
    assertThat(Route.of("/openai/deployments/x/chat/completions")).isEqualTo(Route.CHAT);
    assertThat(Route.of("/v1/embeddings")).isEqualTo(Route.EMBEDDINGS);
    assertThat(Route.of("/v1/responses")).isEqualTo(Route.RESPONSES);
    assertThat(Route.of("/v1/messages")).isEqualTo(Route.MESSAGES);
    assertThat(Route.of("/v1beta/models/gemini-2.5-flash:streamGenerateContent")).isEqualTo(Route.GEMINI);
    assertThat(Route.of("/v1beta/models/gemini-2.5-flash:generateContent")).isEqualTo(Route.GEMINI);
    assertThat(Route.of("/api/chat")).isEqualTo(Route.OLLAMA_CHAT);
    assertThat(Route.of("/api/generate")).isEqualTo(Route.OLLAMA_GENERATE);
    assertThat(Route.of("/generate_stream")).isEqualTo(Route.TGI);
    assertThat(Route.of("/v1/models")).isEqualTo(Route.OTHER);
    assertThat(Route.of("/v1/models").generation()).isFalse();
    assertThat(Route.MESSAGES.apiOrNull()).isEqualTo(Api.ANTHROPIC);
    assertThat(Route.OLLAMA_CHAT.lineDelimited()).isTrue();
    assertThat(Route.RESPONSES.takesUsageOption()).isFalse();
    assertThat(Route.CHAT.takesUsageOption()).isTrue();
  }

  @Test
  void geminiNamesItsModelInThePath() {
    assertThat(Route.GEMINI.model("/v1beta/models/gemini-2.5-flash:streamGenerateContent", null))
        .isEqualTo("gemini-2.5-flash");
    assertThat(Route.GEMINI.model("/v1beta/models/my%20model:generateContent", null)).isEqualTo("my model");
    assertThat(Route.CHAT.model("/v1/chat/completions", "m1")).isEqualTo("m1");
  }

  /**
   * The overspend found by trying: {@code max_completion_tokens: 1} beside {@code max_tokens: 256}
   * on /v1/completions reserved 1 token while the server honoured 256.
   */
  @Test
  void completionsReserveTheMaxTokensTheirServersHonour() throws Exception {
    JsonNode b = body("{\"max_completion_tokens\":1,\"max_tokens\":256}");
    assertThat(Route.COMPLETIONS.maxOutputTokens(b)).isEqualTo(256);
    assertThat(Route.CHAT.maxOutputTokens(b)).as("chat: the larger of the two").isEqualTo(256);
    assertThat(Route.CHAT.maxOutputTokens(body("{\"max_completion_tokens\":300,\"max_tokens\":2}"))).isEqualTo(300);
    assertThat(Route.COMPLETIONS.maxOutputTokens(body("{\"max_completion_tokens\":300}")))
        .as("completions servers do not read max_completion_tokens").isEqualTo(-1);
  }

  @Test
  void everyAnswerAskedForIsReserved() throws Exception {
    assertThat(Route.CHAT.maxOutputTokens(body("{\"max_tokens\":100,\"n\":4}"))).isEqualTo(400);
    assertThat(Route.COMPLETIONS.maxOutputTokens(body("{\"max_tokens\":100,\"n\":2,\"best_of\":5}"))).isEqualTo(500);
    assertThat(Route.GEMINI.maxOutputTokens(body("{\"generationConfig\":{\"maxOutputTokens\":50,\"candidateCount\":3}}")))
        .isEqualTo(150);
    assertThat(Route.CHAT.answers(body("{\"n\":0}"))).isEqualTo(1);
    assertThat(Route.CHAT.answers(body("{\"n\":\"7\"}"))).as("not an integer: the server refuses it").isEqualTo(1);
  }

  @Test
  void eachApiHasItsOwnLimitField() throws Exception {
    assertThat(Route.RESPONSES.maxOutputTokens(body("{\"max_output_tokens\":77,\"max_tokens\":1}"))).isEqualTo(77);
    assertThat(Route.MESSAGES.maxOutputTokens(body("{\"max_tokens\":1024}"))).isEqualTo(1024);
    assertThat(Route.OLLAMA_CHAT.maxOutputTokens(body("{\"options\":{\"num_predict\":64}}"))).isEqualTo(64);
    assertThat(Route.OLLAMA_CHAT.maxOutputTokens(body("{\"options\":{\"num_predict\":-1}}")))
        .as("-1: no limit, the default is reserved").isEqualTo(-1);
    assertThat(Route.TGI.maxOutputTokens(body("{\"parameters\":{\"max_new_tokens\":20}}"))).isEqualTo(20);
    assertThat(Route.EMBEDDINGS.maxOutputTokens(body("{}"))).isZero();
    assertThat(Route.RESPONSES.maxOutputTokens(body("{}"))).isEqualTo(-1);
    assertThat(Route.CHAT.maxOutputTokens(null)).isEqualTo(-1);
  }
}
