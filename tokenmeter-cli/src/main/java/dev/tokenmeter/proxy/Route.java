package dev.tokenmeter.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.client.Api;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * What a request path is to the proxy: which API's answer it carries, so the record path reads its
 * tokens with that API's decoder and the budgets reserve by that API's own output limit. Stateless.
 *
 * <p>Every API the proxy forwards is metered and governed alike (docs/PROXY.md, "APIs"): a path
 * that is none of these ({@code /v1/models}, a health check) is {@link #OTHER}, passed through and
 * recorded without tokens.
 */
enum Route {
  /** OpenAI {@code /v1/chat/completions}. */
  CHAT(Api.CHAT),
  /** OpenAI {@code /v1/completions} (legacy text completions). */
  COMPLETIONS(Api.COMPLETIONS),
  /** OpenAI {@code /v1/embeddings}: input tokens only. */
  EMBEDDINGS(Api.CHAT),
  /** OpenAI {@code /v1/responses}. */
  RESPONSES(Api.RESPONSES),
  /** Anthropic {@code /v1/messages}. */
  MESSAGES(Api.ANTHROPIC),
  /** Gemini {@code /v1beta/models/MODEL:generateContent} and {@code :streamGenerateContent}. */
  GEMINI(Api.GEMINI),
  /** Ollama {@code /api/chat}: newline-delimited JSON. */
  OLLAMA_CHAT(Api.OLLAMA),
  /** Ollama {@code /api/generate}: newline-delimited JSON. */
  OLLAMA_GENERATE(Api.OLLAMA_GENERATE),
  /** TGI {@code /generate_stream} and {@code /generate}. */
  TGI(Api.TGI),
  /** Anything else: passed through, no tokens. */
  OTHER(null);

  private final Api apiOrNull;

  Route(Api apiOrNull) {
    this.apiOrNull = apiOrNull;
  }

  /** The route of {@code path} (without the query). Order matters: {@code /chat/completions} first. */
  static Route of(String path) {
    if (path.endsWith("/chat/completions")) {
      return CHAT;
    }
    if (path.endsWith("/completions")) {
      return COMPLETIONS;
    }
    if (path.endsWith("/embeddings")) {
      return EMBEDDINGS;
    }
    if (path.endsWith("/v1/responses") || path.equals("/responses")) {
      return RESPONSES;
    }
    if (path.endsWith("/v1/messages") || path.equals("/messages")) {
      return MESSAGES;
    }
    if (path.contains("/models/") && (path.endsWith(":generateContent") || path.endsWith(":streamGenerateContent"))) {
      return GEMINI;
    }
    if (path.endsWith("/api/chat")) {
      return OLLAMA_CHAT;
    }
    if (path.endsWith("/api/generate")) {
      return OLLAMA_GENERATE;
    }
    if (path.endsWith("/generate_stream") || path.endsWith("/generate")) {
      return TGI;
    }
    return OTHER;
  }

  /** Whether responses on this route carry tokens: their bodies are read and their budgets held. */
  boolean generation() {
    return this != OTHER;
  }

  /** The API whose decoder reads this route's answers; null for {@link #OTHER}. */
  Api apiOrNull() {
    return apiOrNull;
  }

  /** Whether the answer is newline-delimited JSON rather than server-sent events (Ollama). */
  boolean lineDelimited() {
    return apiOrNull != null && apiOrNull.lineDelimited();
  }

  /** Whether the proxy may ask for usage on the client's behalf ({@code stream_options}). */
  boolean takesUsageOption() {
    return this == CHAT || this == COMPLETIONS;
  }

  /**
   * The model a request names: the body's {@code model}, or for Gemini the path's {@code
   * models/MODEL:...}; null when neither names one.
   */
  String model(String path, String bodyModel) {
    if (this != GEMINI) {
      return bodyModel;
    }
    int start = path.lastIndexOf("/models/") + "/models/".length();
    int end = path.lastIndexOf(':');
    return end > start ? URLDecoder.decode(path.substring(start, end), StandardCharsets.UTF_8) : bodyModel;
  }

  /**
   * The most output tokens the request may make the server generate, summed over the answers it
   * asks for: the route's own limit field, times the number of answers ({@code n}, {@code best_of},
   * Gemini's {@code candidateCount}); -1 when the request names no limit (the caller reserves its
   * default). Where servers differ on which field they honour, the largest is taken: on chat,
   * OpenAI honours {@code max_completion_tokens} while older servers read only {@code max_tokens},
   * so a request may not name a small one and be served by the other.
   */
  long maxOutputTokens(JsonNode body) {
    if (body == null || !body.isObject()) {
      return -1;
    }
    long limit =
        switch (this) {
          case CHAT -> Math.max(count(body, "max_completion_tokens"), count(body, "max_tokens"));
          case COMPLETIONS, MESSAGES -> count(body, "max_tokens");
          case RESPONSES -> count(body, "max_output_tokens");
          case GEMINI -> count(body.path("generationConfig"), "maxOutputTokens");
          case OLLAMA_CHAT, OLLAMA_GENERATE -> count(body.path("options"), "num_predict");
          case TGI -> count(body.path("parameters"), "max_new_tokens");
          case EMBEDDINGS -> 0;
          case OTHER -> -1;
        };
    return limit < 0 ? -1 : limit * answers(body);
  }

  /** How many answers the request asks the server to generate; at least 1. */
  long answers(JsonNode body) {
    long n =
        switch (this) {
          case CHAT -> count(body, "n");
          case COMPLETIONS -> Math.max(count(body, "n"), count(body, "best_of"));
          case GEMINI -> count(body.path("generationConfig"), "candidateCount");
          case TGI -> count(body.path("parameters"), "best_of");
          default -> 1;
        };
    return Math.max(1, n);
  }

  /** A non-negative integer member of {@code o}, else -1 (absent, null, negative, not an integer). */
  private static long count(JsonNode o, String name) {
    JsonNode v = o.get(name);
    return v != null && v.isIntegralNumber() && v.canConvertToLong() && v.asLong() >= 0 ? v.asLong() : -1;
  }
}
