package dev.tokenmeter.simulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The routes of the APIs other than OpenAI's chat and completions, and each API's error body, so
 * that a client of any of them can be pointed at {@code sim serve}:
 *
 * <pre>
 * POST /v1/messages                                   Anthropic Messages
 * POST /v1/responses                                  OpenAI Responses
 * POST /v1beta/models/MODEL:streamGenerateContent     Gemini (?alt=sse), and :generateContent
 * POST /generate_stream, /generate                    TGI
 * POST /api/chat, /api/generate                       Ollama
 * GET  /v1beta/models, /info, /api/tags               the model listings of Gemini, TGI, Ollama
 * </pre>
 *
 * {@code GET /v1/models} (OpenAI's list, which Anthropic's clients read too) stays with {@link
 * SimHandler}. Stateless; called on the connection's event loop.
 */
final class ApiRoutes {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Reads a request body; the rejection is answered in the API's error shape. */
  @FunctionalInterface
  interface Parse {
    RequestParser.Parsed get() throws RequestParser.Rejected;
  }

  private ApiRoutes() {}

  /** Answers {@code request} when it is one of these routes; false when it is none of them. */
  static boolean handle(SimHandler handler, ServerState state, FullHttpRequest request, long arrivalNanos) {
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    String path = uri.path();
    boolean post = request.method().equals(HttpMethod.POST);
    boolean get = request.method().equals(HttpMethod.GET);
    GenerationRequest.Api api =
        switch (path) {
          case "/v1/messages" -> GenerationRequest.Api.ANTHROPIC;
          case "/v1/responses" -> GenerationRequest.Api.RESPONSES;
          case "/generate_stream", "/generate" -> GenerationRequest.Api.TGI;
          case "/api/chat" -> GenerationRequest.Api.OLLAMA;
          case "/api/generate" -> GenerationRequest.Api.OLLAMA_GENERATE;
          default -> path.matches("/v1(beta)?/models/.+:(stream)?[gG]enerateContent") ? GenerationRequest.Api.GEMINI : null;
        };
    String model = state.config.servedModelName();
    if (api == null && get) {
      Object listing =
          switch (path) {
            case "/v1beta/models" ->
                Map.of("models", List.of(Map.of("name", "models/" + model, "displayName", model,
                    "supportedGenerationMethods", List.of("generateContent", "streamGenerateContent"))));
            case "/api/tags" -> Map.of("models", List.of(Map.of("name", model, "model", model)));
            case "/info" -> Map.of("model_id", model, "max_total_tokens", state.config.maxModelLen());
            default -> null;
          };
      if (listing != null) {
        handler.sendJson(HttpResponseStatus.OK, Unpooled.wrappedBuffer(json(listing)));
      }
      return listing != null;
    }
    if (api == null) {
      return false;
    }
    if (!post) {
      handler.sendJson(HttpResponseStatus.METHOD_NOT_ALLOWED, Unpooled.wrappedBuffer(error(api, 405, "Method Not Allowed")));
      return true;
    }
    String pathModel = null;
    boolean pathStream = path.equals("/generate_stream");
    if (api == GenerationRequest.Api.GEMINI) {
      pathModel = path.substring(path.indexOf("/models/") + 8, path.lastIndexOf(':'));
      pathStream = path.endsWith(":streamGenerateContent");
      if (pathStream && !"sse".equals(first(uri, "alt"))) {
        handler.sendJson(HttpResponseStatus.BAD_REQUEST, Unpooled.wrappedBuffer(error(api, 400,
            "the simulator streams Gemini as server-sent events only: add ?alt=sse")));
        return true;
      }
    }
    String m = pathModel;
    boolean s = pathStream;
    GenerationRequest.Api a = api;
    handler.generate(api, () -> ApiRequestParser.parse(a, new ByteBufInputStream(request.content()), m, s,
        state.config.promptCounter()), arrivalNanos);
    return true;
  }

  private static String first(QueryStringDecoder uri, String name) {
    List<String> v = uri.parameters().get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  /** The response id's prefix per API (vLLM's {@code chatcmpl-} and {@code cmpl-}, Anthropic's {@code msg_}, ...). */
  static String idPrefix(GenerationRequest.Api api) {
    return switch (api) {
      case CHAT -> "chatcmpl-";
      case COMPLETIONS -> "cmpl-";
      case ANTHROPIC -> "msg_";
      case RESPONSES -> "resp_";
      case GEMINI, TGI, OLLAMA, OLLAMA_GENERATE -> "";
    };
  }

  /**
   * An error body in {@code api}'s shape: OpenAI's (chat, completions, responses), Anthropic's
   * {@code {"type":"error","error":{"type":…,"message":…}}}, Google's {@code
   * {"error":{"code":…,"message":…,"status":…}}}, TGI's {@code {"error":…,"error_type":…}},
   * Ollama's {@code {"error":…}}. {@code openAiType} is the OpenAI type the server would use.
   */
  static byte[] error(GenerationRequest.Api api, int status, String message, String openAiType) {
    return switch (api) {
      case CHAT, COMPLETIONS, RESPONSES -> Bodies.error(message, openAiType, status);
      case ANTHROPIC -> {
        String type = switch (status) {
          case 400 -> "invalid_request_error";
          case 401 -> "authentication_error";
          case 404 -> "not_found_error";
          case 429 -> "rate_limit_error";
          case 503, 529 -> "overloaded_error";
          default -> "api_error";
        };
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("type", type);
        error.put("message", message);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "error");
        body.put("error", error);
        yield json(body);
      }
      case GEMINI -> {
        String code = switch (status) {
          case 400 -> "INVALID_ARGUMENT";
          case 404 -> "NOT_FOUND";
          case 429 -> "RESOURCE_EXHAUSTED";
          case 503 -> "UNAVAILABLE";
          default -> "INTERNAL";
        };
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", status);
        error.put("message", message);
        error.put("status", code);
        yield json(Map.of("error", error));
      }
      case TGI -> {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        body.put("error_type", status == 429 ? "overloaded" : status < 500 ? "validation" : "generation");
        yield json(body);
      }
      case OLLAMA, OLLAMA_GENERATE -> json(Map.of("error", message));
    };
  }

  static byte[] error(GenerationRequest.Api api, int status, String message) {
    return error(api, status, message, status == 405 ? "MethodNotAllowed" : "BadRequestError");
  }

  private static byte[] json(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
