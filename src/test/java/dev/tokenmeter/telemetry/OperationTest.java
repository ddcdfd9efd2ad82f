package dev.tokenmeter.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OperationTest {
  @ParameterizedTest
  @CsvSource({
    "/v1/chat/completions, chat",
    "/v1/chat/completions/, chat",
    "/openai/v1/Chat/Completions, chat",
    "/v1/completions, text_completion",
    "/v1/embeddings, embeddings",
    "/v1/models, other",
    "/, other",
    "'', other",
    "/completionsx, other",
    "/v1/chat/completions//, other",
  })
  void mapsEndpointPathsToTheConventionsOperationNames(String endpoint, String operation) {
    assertThat(Operation.ofEndpoint(endpoint).wireName()).isEqualTo(operation);
  }
}
