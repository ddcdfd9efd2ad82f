package dev.tokenmeter.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The streaming APIs tokenmeter speaks. Each one builds its own request (path, auth header, body:
 * {@link RequestBodyEncoder}) and turns its own wire events into the same {@link
 * dev.tokenmeter.core.request.StreamItem}s ({@link StreamDecoder}), so the measurement contract
 * and the reports do not depend on the API. docs/METRICS.md, "APIs", has a table per API.
 */
public enum Api {
  /** OpenAI {@code POST /v1/chat/completions} with {@code messages}. */
  CHAT("chat", Root.V1, "/chat/completions"),
  /** OpenAI {@code POST /v1/completions} with {@code prompt}. */
  COMPLETIONS("completions", Root.V1, "/completions"),
  /** Anthropic Messages, {@code POST /v1/messages}. */
  ANTHROPIC("anthropic", Root.V1, "/messages"),
  /** OpenAI Responses, {@code POST /v1/responses}. */
  RESPONSES("responses", Root.V1, "/responses"),
  /** Google Gemini, {@code POST /v1beta/models/MODEL:streamGenerateContent?alt=sse}. */
  GEMINI("gemini", Root.V1BETA, "/models/"),
  /** Hugging Face TGI's native {@code POST /generate_stream}. */
  TGI("tgi", Root.PLAIN, "/generate_stream"),
  /** Ollama's native {@code POST /api/chat}: newline-delimited JSON. */
  OLLAMA("ollama", Root.API, "/chat"),
  /** Ollama's native {@code POST /api/generate}: newline-delimited JSON. */
  OLLAMA_GENERATE("ollama-generate", Root.API, "/generate");

  /** What {@code --url}'s path gets before the API's own path. */
  private enum Root {
    /** {@code /v1}, unless the URL already ends with it. */
    V1("/v1"),
    /** {@code /v1beta}, unless the URL already ends with it or with {@code /v1}. */
    V1BETA("/v1beta"),
    /** {@code /api}, unless the URL already ends with it. */
    API("/api"),
    /** Nothing: TGI's routes sit at the root (or below a prefix the URL carries). */
    PLAIN("");

    final String segment;

    Root(String segment) {
      this.segment = segment;
    }
  }

  private final String wireName;
  private final Root root;
  private final String path;

  Api(String wireName, Root root, String path) {
    this.wireName = wireName;
    this.root = root;
    this.path = path;
  }

  /** The name {@code --api} takes and results files carry ({@code chat}, {@code ollama-generate}). */
  public String wireName() {
    return wireName;
  }

  /** True for the APIs that stream newline-delimited JSON instead of server-sent events. */
  public boolean lineDelimited() {
    return root == Root.API;
  }

  /** True for the OpenAI-compatible APIs (chat and completions), whose chunks {@link ChunkParser} reads. */
  public boolean openAiCompatible() {
    return this == CHAT || this == COMPLETIONS;
  }

  /** True when the request cannot be made without a model name (in the body or the path). */
  public boolean needsModel() {
    return this == ANTHROPIC || this == GEMINI || this == OLLAMA || this == OLLAMA_GENERATE;
  }

  /**
   * The request path for a URL whose path is {@code basePath}: the API root (added when the URL
   * does not already end with it), then the API's route. Gemini puts the model in the path and
   * asks for SSE with {@code alt=sse}; TGI's and Gemini's routes differ for a non-streamed request.
   */
  public String requestPath(String basePath, String model, boolean stream) {
    String p = apiRoot(basePath);
    return switch (this) {
      case GEMINI -> {
        String m = model == null ? "" : model.startsWith("models/") ? model.substring(7) : model;
        String name = URLEncoder.encode(m, StandardCharsets.UTF_8).replace("+", "%20");
        yield p + path + name + (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
      }
      case TGI -> p + (stream ? path : "/generate");
      default -> p + path;
    };
  }

  /**
   * Where the server lists its models (or, for TGI, describes the one it serves), below the same
   * root as {@link #requestPath}: {@code /v1/models}, {@code /v1beta/models}, {@code /api/tags},
   * {@code /info}.
   */
  public String modelsPath(String basePath) {
    String p = apiRoot(basePath);
    return switch (root) {
      case V1, V1BETA -> p + "/models";
      case API -> p + "/tags";
      case PLAIN -> p + "/info";
    };
  }

  private String apiRoot(String basePath) {
    String p = basePath == null ? "" : basePath;
    while (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    boolean present = p.endsWith(root.segment) || (root == Root.V1BETA && p.endsWith("/v1"));
    return present ? p : p + root.segment;
  }

  /** Parses an {@code --api} value (case-insensitive, a few aliases). */
  public static Api parse(String s) {
    String v = s.trim().toLowerCase(Locale.ROOT).replace('_', '-');
    return switch (v) {
      case "chat", "chat-completions" -> CHAT;
      case "completions", "completion", "text" -> COMPLETIONS;
      case "anthropic", "messages", "claude" -> ANTHROPIC;
      case "responses", "openai-responses" -> RESPONSES;
      case "gemini", "google" -> GEMINI;
      case "tgi", "generate-stream" -> TGI;
      case "ollama", "ollama-chat" -> OLLAMA;
      case "ollama-generate" -> OLLAMA_GENERATE;
      default ->
          throw new IllegalArgumentException(
              "unknown API '" + s + "': use one of " + names() + " (docs/METRICS.md, \"APIs\")");
    };
  }

  /** Every {@code --api} name, comma-separated. */
  public static String names() {
    return Arrays.stream(values()).map(Api::wireName).collect(Collectors.joining(", "));
  }
}
