package dev.tokenmeter.telemetry;

/**
 * The {@code gen_ai.operation.name} of a proxied request, from its endpoint path. The GenAI
 * histograms are recorded only for the three GenAI operations; {@link #OTHER} requests ({@code GET
 * /v1/models}, anything else passed through) are counted in {@code tokenmeter_proxy_requests_total}
 * only.
 */
enum Operation {
  CHAT("chat"),
  TEXT_COMPLETION("text_completion"),
  /** Gemini's generateContent, the conventions' value for it. */
  GENERATE_CONTENT("generate_content"),
  EMBEDDINGS("embeddings"),
  OTHER("other");

  private final String wireName;

  Operation(String wireName) {
    this.wireName = wireName;
  }

  /** The label value: the OpenTelemetry well-known value, or {@code other}. */
  String wireName() {
    return wireName;
  }

  boolean genAi() {
    return this != OTHER;
  }

  /** Whether responses stream generated tokens, so TTFT, TPOT and ITL apply (not embeddings). */
  boolean generates() {
    return this == CHAT || this == TEXT_COMPLETION || this == GENERATE_CONTENT;
  }

  /**
   * The operation of an endpoint path (query already removed). Matched on the path's end, so a
   * prefix that a gateway adds ({@code /openai/v1/chat/completions}) still counts. The other APIs
   * the proxy meters: Anthropic's {@code /v1/messages}, OpenAI's {@code /v1/responses} and Ollama's
   * {@code /api/chat} are {@code chat}; Ollama's {@code /api/generate} and TGI's {@code /generate}
   * and {@code /generate_stream} are {@code text_completion}; Gemini's {@code
   * models/M:generateContent} and {@code :streamGenerateContent} are {@code generate_content}.
   */
  static Operation ofEndpoint(String endpoint) {
    int end = endpoint.length();
    if (end > 1 && endpoint.charAt(end - 1) == '/') {
      end--; // one trailing slash, as servers that route "/v1/chat/completions/" do
    }
    if (endsWith(endpoint, end, "/chat/completions")) {
      return CHAT;
    }
    if (endsWith(endpoint, end, "/completions")) {
      return TEXT_COMPLETION;
    }
    if (endsWith(endpoint, end, "/embeddings")) {
      return EMBEDDINGS;
    }
    if (endsWith(endpoint, end, "/v1/messages") || endsWith(endpoint, end, "/v1/responses")
        || endsWith(endpoint, end, "/api/chat")) {
      return CHAT;
    }
    if (endsWith(endpoint, end, "generateContent") && endpoint.contains("/models/")) {
      return GENERATE_CONTENT;
    }
    if (endsWith(endpoint, end, "/generate") || endsWith(endpoint, end, "/generate_stream")) {
      return TEXT_COMPLETION;
    }
    return OTHER;
  }

  /** Whether {@code path[0, end)} ends with {@code suffix}, ignoring case; allocates nothing. */
  private static boolean endsWith(String path, int end, String suffix) {
    int from = end - suffix.length();
    return from >= 0 && path.regionMatches(/* ignoreCase= */ true, from, suffix, 0, suffix.length());
  }
}
