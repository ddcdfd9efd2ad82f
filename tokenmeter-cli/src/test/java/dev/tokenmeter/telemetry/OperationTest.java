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
    "/v1/messages, chat",
    "/v1/responses, chat",
    "/api/chat, chat",
    "/api/generate, text_completion",
    "/generate_stream, text_completion",
    "/v1beta/models/gemini-2.5-flash:streamGenerateContent, generate_content",
    "/v1beta/models/gemini-2.5-flash:generateContent, generate_content",
    "/, other",
    "'', other",
    "/completionsx, other",
    "/v1/chat/completions//, other",
  })
  void mapsEndpointPathsToTheConventionsOperationNames(String endpoint, String operation) {
    assertThat(Operation.ofEndpoint(endpoint).wireName()).isEqualTo(operation);
  }
}
