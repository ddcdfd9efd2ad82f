package dev.tokenmeter.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.core.request.Outcome;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Says in one line why requests failed and what to change: the server's own message (from its
 * JSON error body where it sent one) and the likely fix for the flags given. Before, a run whose
 * every request failed said only "see the error field in requests.jsonl" (issue 43).
 *
 * <pre>{@code
 * FailureHint.explain(new Outcome.HttpError(404, "{\"error\":{\"message\":\"The model `x` does not exist.\"}}"),
 *     endpoint, () -> List.of("llama"))
 * // the server says: "The model `x` does not exist." (HTTP 404); it lists: llama. Try --model llama
 * }</pre>
 *
 * <p>Pure but for {@code models}, asked only when the failure is about the model. Any thread.
 */
final class FailureHint {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Longest server message quoted, in characters. */
  static final int MAX_MESSAGE_CHARS = 200;

  /** Most model names listed in a hint. */
  private static final int MAX_MODELS = 5;

  private FailureHint() {}

  /**
   * {@code the server says: "..." (HTTP 404); <fix>} for a failure of a request to {@code e};
   * {@code models} lists what the server serves (empty when unknown).
   */
  static String explain(Outcome failure, EndpointConfig e, Supplier<List<String>> models) {
    String says = "the server says: \"" + serverMessage(failure) + "\"" + status(failure);
    String fix = fix(failure, e, models);
    return fix == null ? says : says + "; " + fix;
  }

  private static String status(Outcome o) {
    return switch (o) {
      case Outcome.HttpError h -> " (HTTP " + h.status() + ")";
      case Outcome.StreamError s -> " (an error inside the stream)";
      case Outcome.ProtocolError p -> " (not the API's format)";
      case Outcome.Completed c -> "";
      case Outcome.ConnectFailed c -> " (connect failed)";
      case Outcome.Truncated t -> " (the stream ended early)";
      case Outcome.TimedOut t -> "";
      case Outcome.ContentFiltered f -> " (a content policy stopped the answer)";
      case Outcome.Cancelled c -> "";
    };
  }

  /** The server's words: an error body's message field, else the text itself, on one line. */
  static String serverMessage(Outcome o) {
    String text =
        switch (o) {
          case Outcome.HttpError h -> messageOf(h.body());
          case Outcome.StreamError s -> messageOf(s.message());
          case Outcome.ProtocolError p -> p.message();
          case Outcome.ConnectFailed c -> c.message();
          case Outcome.Truncated t -> t.message();
          case Outcome.TimedOut t -> "nothing: no answer within the " + t.kind().name().toLowerCase(Locale.ROOT).replace('_', '-') + " timeout";
          case Outcome.Cancelled c -> c.reason();
          case Outcome.ContentFiltered f -> "finish reason " + f.finishReason();
          case Outcome.Completed c -> "";
        };
    String line = text == null ? "" : text.replaceAll("\\s+", " ").strip();
    return line.length() <= MAX_MESSAGE_CHARS ? line : line.substring(0, MAX_MESSAGE_CHARS) + "...";
  }

  /**
   * The message field of an error body: {@code error.message} (OpenAI, Anthropic), {@code message}
   * (vLLM), {@code detail} (FastAPI), {@code error} as text (TGI, Ollama); the body itself when it
   * is not JSON or has none of them.
   */
  static String messageOf(String body) {
    if (body == null || body.isBlank()) {
      return "(empty body)";
    }
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      return body;
    }
    for (JsonNode n : new JsonNode[] {root.path("error").path("message"), root.path("message"),
        root.path("detail"), root.path("error")}) {
      if (n.isTextual() && !n.asText().isBlank()) {
        return n.asText();
      }
    }
    return body;
  }

  /** The likely fix, or null when none is known. */
  private static String fix(Outcome o, EndpointConfig e, Supplier<List<String>> models) {
    if (!(o instanceof Outcome.HttpError h)) {
      return switch (o) {
        case Outcome.ProtocolError p -> "does the server speak --api " + e.api().wireName() + "? Check --api";
        case Outcome.StreamError s -> "the request reached the server; check --model, --extra-body and the token counts";
        default -> null;
      };
    }
    String message = messageOf(h.body()).toLowerCase(Locale.ROOT);
    String endpointUrl = endpointSuffix(e);
    if ((h.status() == 404 || h.status() == 405) && endpointUrl != null) {
      return "--url ends with the API's route: give the server's root, --url " + endpointUrl
          + " (tokenmeter adds " + e.api().requestPath("", e.model(), e.stream()) + ")";
    }
    if (h.status() == 401 || h.status() == 403) {
      return "give the API key with --api-key-env VAR";
    }
    if (h.status() == 429) {
      return "the server limits the request rate: lower --concurrency or --rate, or raise the limit";
    }
    if (h.status() >= 500) {
      return "the server failed; its logs say why";
    }
    if (message.contains("model")) {
      return modelFix(e, models.get());
    }
    if (h.status() == 404 || h.status() == 405) {
      return "the server has no " + e.requestPath() + ": check --api (" + e.api().wireName() + ") and --url";
    }
    return "the server refused the request: check --extra-body, --input-tokens, --output-tokens and --api";
  }

  private static String modelFix(EndpointConfig e, List<String> listed) {
    if (listed.isEmpty()) {
      return "check --model" + (e.model() == null ? "" : " (" + e.model() + ")");
    }
    List<String> shown = listed.subList(0, Math.min(MAX_MODELS, listed.size()));
    return "it lists: " + String.join(", ", shown) + (listed.size() > shown.size() ? ", ..." : "")
        + ". Try --model " + listed.get(0);
  }

  /**
   * {@code --url}'s value without an API route it ends with ({@code .../v1/chat/completions} or
   * {@code .../chat/completions}: the full endpoint, to which the client adds the route again), or
   * null when it ends with none.
   */
  static String endpointSuffix(EndpointConfig e) {
    String path = e.baseUrl().getRawPath() == null ? "" : e.baseUrl().getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    for (Api api : Api.values()) {
      if (api == Api.GEMINI) {
        continue; // its route holds the model
      }
      String route = api.requestPath("", null, true);
      // with its API root (/v1/chat/completions) or, for the /v1 APIs, without (/chat/completions)
      for (String r : route.startsWith("/v1/") ? List.of(route, route.substring(3)) : List.of(route)) {
        if (path.endsWith(r)) {
          String url = e.baseUrl().toString();
          return url.substring(0, url.indexOf(e.baseUrl().getRawPath())) + path.substring(0, path.length() - r.length());
        }
      }
    }
    return null;
  }
}
