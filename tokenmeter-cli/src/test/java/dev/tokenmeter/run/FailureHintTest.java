package dev.tokenmeter.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.TimeoutKind;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** One line per failure: the server's own words, then the fix for the flags given (issue 43's cases). */
class FailureHintTest {
  private final AtomicInteger asked = new AtomicInteger();
  private final Supplier<List<String>> lists = () -> {
    asked.incrementAndGet();
    return List.of("meta-llama/Llama-3.1-8B-Instruct", "b", "c", "d", "e", "f");
  };

  private static EndpointConfig endpoint(String url, Api api, String model) {
    return new EndpointConfig(URI.create(url), api, model, null, Map.of(), null, true, true, 1000);
  }

  @Test
  void aWrongModelQuotesTheServerAndListsItsModels() {
    // vLLM's body for an unknown model
    String vllm = "{\"object\":\"error\",\"message\":\"The model `gpt-4o-mini` does not exist.\",\"type\":\"NotFoundError\","
        + "\"param\":null,\"code\":404}";
    String line = FailureHint.explain(new Outcome.HttpError(404, vllm), endpoint("http://h:8000", Api.CHAT, "gpt-4o-mini"), lists);
    assertThat(line).isEqualTo("the server says: \"The model `gpt-4o-mini` does not exist.\" (HTTP 404); it lists:"
        + " meta-llama/Llama-3.1-8B-Instruct, b, c, d, e, .... Try --model meta-llama/Llama-3.1-8B-Instruct");
    assertThat(asked).hasValue(1);
  }

  @Test
  void anotherApiOnTheServerIsNamedWithoutAskingForModels() {
    String line = FailureHint.explain(new Outcome.HttpError(404, "{\"detail\":\"Not Found\"}"),
        endpoint("http://h:8000", Api.ANTHROPIC, "llama"), lists);
    assertThat(line).isEqualTo("the server says: \"Not Found\" (HTTP 404); the server has no /v1/messages: check --api"
        + " (anthropic) and --url");
    assertThat(asked).as("not about the model").hasValue(0);
  }

  @Test
  void theFullEndpointAsUrlIsFoundAndTheRootGiven() {
    EndpointConfig e = endpoint("http://127.0.0.1:8000/v1/chat/completions", Api.CHAT, null);
    assertThat(FailureHint.endpointSuffix(e)).isEqualTo("http://127.0.0.1:8000");
    assertThat(FailureHint.endpointSuffix(endpoint("https://api.x.com/proxy/v1/messages/", Api.CHAT, null)))
        .isEqualTo("https://api.x.com/proxy");
    assertThat(FailureHint.endpointSuffix(endpoint("http://h:8000/chat/completions", Api.CHAT, null)))
        .isEqualTo("http://h:8000");
    assertThat(FailureHint.endpointSuffix(endpoint("http://h:8000/api/generate", Api.OLLAMA, null)))
        .isEqualTo("http://h:8000");
    assertThat(FailureHint.endpointSuffix(endpoint("http://h:8000/v1", Api.CHAT, null))).isNull();
    assertThat(FailureHint.endpointSuffix(endpoint("http://h:8000/chat", Api.CHAT, null))).isNull();
    assertThat(FailureHint.endpointSuffix(endpoint("http://h:8000", Api.CHAT, null))).isNull();
    assertThat(FailureHint.explain(new Outcome.HttpError(404, "{\"detail\":\"Not Found\"}"), e, lists))
        .endsWith("--url ends with the API's route: give the server's root, --url http://127.0.0.1:8000"
            + " (tokenmeter adds /v1/chat/completions)");
  }

  @Test
  void errorBodiesOfEachShapeGiveTheirMessage() {
    assertThat(FailureHint.messageOf("{\"error\":{\"type\":\"not_found_error\",\"message\":\"model: x\"},\"type\":\"error\"}"))
        .isEqualTo("model: x");
    assertThat(FailureHint.messageOf("{\"error\":\"Input validation error: `inputs` must have less than 4096 tokens\"}"))
        .startsWith("Input validation error");
    assertThat(FailureHint.messageOf("<html>Bad Gateway</html>")).isEqualTo("<html>Bad Gateway</html>");
    assertThat(FailureHint.messageOf("{\"error\":{\"message\":\"cut sho")).as("a bounded prefix").isEqualTo("{\"error\":{\"message\":\"cut sho");
    assertThat(FailureHint.messageOf("")).isEqualTo("(empty body)");
    assertThat(FailureHint.serverMessage(new Outcome.HttpError(500, "line one\n  line two " + "x".repeat(300))))
        .as("one line, bounded").doesNotContain("\n").hasSize(FailureHint.MAX_MESSAGE_CHARS + 3).startsWith("line one line two");
  }

  @Test
  void otherStatusesGetTheirFix() {
    EndpointConfig e = endpoint("http://h:8000", Api.CHAT, "m");
    assertThat(FailureHint.explain(new Outcome.HttpError(401, "{\"message\":\"no key\"}"), e, lists))
        .endsWith("give the API key with --api-key-env VAR");
    assertThat(FailureHint.explain(new Outcome.HttpError(429, ""), e, lists)).contains("\"(empty body)\" (HTTP 429)")
        .contains("lower --concurrency or --rate");
    assertThat(FailureHint.explain(new Outcome.HttpError(400, "{\"message\":\"max_tokens must be at most 100\"}"), e, lists))
        .endsWith("check --extra-body, --input-tokens, --output-tokens and --api");
    assertThat(FailureHint.explain(new Outcome.ProtocolError("unexpected content type text/html"), e, lists))
        .isEqualTo("the server says: \"unexpected content type text/html\" (not the API's format); does the server"
            + " speak --api chat? Check --api");
    assertThat(FailureHint.explain(new Outcome.TimedOut(TimeoutKind.FIRST_TOKEN), e, lists))
        .isEqualTo("the server says: \"nothing: no answer within the first-token timeout\"");
    assertThat(FailureHint.explain(new Outcome.HttpError(404, "{\"message\":\"model not found\"}"),
        e, List::of)).endsWith("check --model (m)");
    assertThat(asked).hasValue(0);
  }
}
