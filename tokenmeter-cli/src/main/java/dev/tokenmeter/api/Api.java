package dev.tokenmeter.api;

import dev.tokenmeter.simulator.GenerationRequest;
import java.util.Set;

/**
 * The five wire APIs a {@link Simulator} speaks (all at once, on one port), and the base URL each
 * provider's client library expects.
 */
public enum Api {
  /** OpenAI: {@code /v1/chat/completions}, {@code /v1/completions}, {@code /v1/responses}; base URL {@code …/v1}. */
  OPENAI("/v1", Set.of(GenerationRequest.Api.CHAT, GenerationRequest.Api.COMPLETIONS, GenerationRequest.Api.RESPONSES)),
  /** Anthropic Messages: {@code /v1/messages}; base URL {@code …/v1} (LangChain4j; Spring AI takes the root). */
  ANTHROPIC("/v1", Set.of(GenerationRequest.Api.ANTHROPIC)),
  /** Gemini: {@code /v1beta/models/MODEL:streamGenerateContent}; base URL the root. */
  GEMINI("", Set.of(GenerationRequest.Api.GEMINI)),
  /** Ollama: {@code /api/chat}, {@code /api/generate}; base URL the root. */
  OLLAMA("", Set.of(GenerationRequest.Api.OLLAMA, GenerationRequest.Api.OLLAMA_GENERATE)),
  /** Hugging Face TGI: {@code /generate_stream}, {@code /generate}; base URL the root. */
  TGI("", Set.of(GenerationRequest.Api.TGI));

  private final String basePath;
  private final Set<GenerationRequest.Api> endpoints;

  Api(String basePath, Set<GenerationRequest.Api> endpoints) {
    this.basePath = basePath;
    this.endpoints = endpoints;
  }

  /** The path the provider's SDKs put after the host: {@code /v1} or empty. */
  public String basePath() {
    return basePath;
  }

  /** The simulator's endpoints of this API. */
  Set<GenerationRequest.Api> endpoints() {
    return endpoints;
  }

  /** The API a request to {@code endpoint} was made in. */
  static Api of(GenerationRequest.Api endpoint) {
    for (Api a : values()) {
      if (a.endpoints.contains(endpoint)) {
        return a;
      }
    }
    throw new IllegalArgumentException("no API for " + endpoint);
  }
}
