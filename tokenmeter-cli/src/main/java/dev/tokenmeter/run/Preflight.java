package dev.tokenmeter.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.EndpointConfig;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;

/**
 * Asks the server once for its models before a run, where the API lists them ({@link
 * Api#modelsPath}: {@code /v1/models}, Gemini's {@code /v1beta/models}, Ollama's {@code
 * /api/tags}, TGI's {@code /info}): proves the server is reachable (a clear message instead of a
 * run full of connect errors), finds the model when {@code --model} is not given, and catches a
 * wrong URL, key or API early. Costs no generation on the server.
 *
 * <p>When the listing is not this API's, the other APIs' listings are asked too; a server that
 * answers one of them speaks that API, and the run stops with one line saying which ("this
 * endpoint answered like an OpenAI server; try --api chat"). For chat and completions that line is
 * a warning only: servers with a native API of their own (TGI, llama.cpp, Ollama) speak OpenAI's
 * chat too without always listing models at {@code /v1/models}.
 */
public final class Preflight {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What the server said. {@code warnings} are printed; they do not stop the run. */
  public record Result(List<String> models, List<String> warnings) {}

  /** The listings other APIs answer, asked when this API's is missing, in this order. */
  private static final List<Api> PROBES = List.of(Api.CHAT, Api.OLLAMA, Api.TGI, Api.GEMINI);

  private Preflight() {}

  public static Result check(EndpointConfig cfg, Duration timeout) {
    URI base = cfg.baseUrl();
    String serverRoot = FailureHint.endpointSuffix(cfg);
    if (serverRoot != null) {
      throw new TargetException("--url " + base + " ends with an API's route, which tokenmeter adds itself"
          + " (requests would go to " + cfg.requestPath() + "): give the server's root, --url " + serverRoot);
    }
    URI uri = base.resolve(cfg.modelsPath());
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(timeout);
    if (base.getScheme() != null && base.getScheme().equalsIgnoreCase("https")) {
      client.sslContext(cfg.tls().jdkContext());
    }
    try (HttpClient http = client.build()) {
      HttpResponse<String> resp = get(http, cfg, uri, timeout);
      int status = resp.statusCode();
      JsonNode root = json(resp.body());
      if (status == 401 || status == 403) {
        throw new TargetException(
            "the server refused the request to " + uri + " (HTTP " + status + "): give the API key with --api-key-env VAR"
                + keyHint(cfg.api()) + otherApi(root, cfg.api()));
      }
      if (status != 200 && !resp.body().isBlank() && !looksLikeJson(resp.body())) {
        throw new TargetException(base + " is not " + (cfg.api().openAiCompatible() ? "an OpenAI-compatible" : "a " + cfg.api().wireName()) + " API: GET " + uri + " answered HTTP " + status
            + " with a page, not JSON. Check --url: the server's root (http://host:8000) or its API root (.../v1)");
      }
      List<String> models = status == 200 ? listed(cfg.api(), root) : null;
      if (models != null) {
        return new Result(models, List.of());
      }
      List<String> warnings = new ArrayList<>();
      for (Api other : PROBES) {
        if (speaks(http, cfg, other, timeout) && !sameFamily(other, cfg.api())) {
          String line = "GET " + uri + " answered "
              + (status == 200 ? "no " + cfg.api().wireName() + " model list" : "HTTP " + status) + ", and "
              + base.resolve(other.modelsPath(base.getRawPath())) + " did: this endpoint answered like " + server(other);
          if (!cfg.api().openAiCompatible()) {
            // A gateway may serve the generation route alone: judge by a real one-token request.
            int answered = oneTokenRequest(http, cfg, timeout);
            if (answered < 200 || answered >= 300) {
              throw new TargetException(line + "; a one-token request to POST " + base.resolve(cfg.requestPath())
                  + " answered HTTP " + answered + ": try --api " + other.wireName());
            }
            warnings.add(line + ", but a one-token " + cfg.api().wireName() + " request was answered (HTTP "
                + answered + "): continuing without a model list");
            return new Result(List.of(), warnings);
          }
          // TGI, llama.cpp and Ollama speak OpenAI's chat too, and not all of them list models there.
          warnings.add(line + "; if its requests fail, try --api " + other.wireName());
          return new Result(List.of(), warnings);
        }
      }
      warnings.add(
          status == 200
              ? "GET " + uri + " did not return a model list; does --url speak --api " + cfg.api().wireName() + "?"
              : "GET " + uri + " answered HTTP " + status + "; continuing without a model list");
      return new Result(List.of(), warnings);
    }
  }

  /**
   * The models the server lists for {@code cfg}'s API; empty when it lists none or cannot be asked
   * (nothing is thrown). For a failure's hint ({@link FailureHint}).
   */
  static List<String> models(EndpointConfig cfg, Duration timeout) {
    try {
      return check(cfg, timeout).models();
    } catch (RuntimeException e) {
      return List.of();
    }
  }

  private static HttpResponse<String> get(HttpClient http, EndpointConfig cfg, URI uri, Duration timeout) {
    return send(http, cfg, HttpRequest.newBuilder(uri).timeout(timeout).GET());
  }

  /** The status of one real request of the API ({@link EndpointConfig#oneTokenRequestBody}), its body read and dropped. */
  private static int oneTokenRequest(HttpClient http, EndpointConfig cfg, Duration timeout) {
    URI uri = cfg.baseUrl().resolve(cfg.requestPath());
    return send(http, cfg, HttpRequest.newBuilder(uri).timeout(timeout.multipliedBy(4))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(cfg.oneTokenRequestBody()))).statusCode();
  }

  private static HttpResponse<String> send(HttpClient http, EndpointConfig cfg, HttpRequest.Builder req) {
    Duration timeout = req.build().timeout().orElse(Duration.ofSeconds(10));
    String key = cfg.apiKey();
    switch (cfg.api()) {
      case ANTHROPIC -> {
        req.header("anthropic-version", "2023-06-01");
        if (key != null) {
          req.header("x-api-key", key);
        }
      }
      case GEMINI -> {
        if (key != null) {
          req.header("x-goog-api-key", key);
        }
      }
      default -> {
        if (key != null) {
          req.header("Authorization", "Bearer " + key);
        }
      }
    }
    cfg.headers().forEach(req::setHeader);
    URI base = cfg.baseUrl();
    try {
      return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    } catch (SSLHandshakeException e) {
      throw new TargetException(
          "TLS handshake with " + base + " failed: " + describe(e)
              + (cfg.tls().insecure() ? "" : ". If the server's certificate is self-signed or from a private CA,"
                  + " give the CA with --ca-cert FILE, or --insecure to skip the check."));
    } catch (ConnectException e) {
      throw new TargetException(connectProblem(e, base));
    } catch (HttpTimeoutException e) {
      throw new TargetException(
          "no answer from " + base + " within " + timeout.toSeconds() + "s: is the server up? Check --url.");
    } catch (IOException e) {
      throw new TargetException("cannot reach " + base + ": " + describe(e) + ". Check --url.");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RunFailedException("interrupted while contacting " + base);
    }
  }

  /**
   * What a failed connect means: a host name that does not resolve said "connection refused"
   * (issue 43); the JDK's client reports it as a {@link ConnectException} caused by an {@link
   * java.nio.channels.UnresolvedAddressException}.
   */
  static String connectProblem(ConnectException e, URI base) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.nio.channels.UnresolvedAddressException || t instanceof java.net.UnknownHostException) {
        return "cannot find the host " + base.getHost() + " (the name does not resolve): check --url.";
      }
    }
    String why = e.getMessage() == null || e.getMessage().isBlank() || e.getMessage().contains("refused")
        ? "connection refused" : e.getMessage();
    return "cannot connect to " + base + " (" + why + "): is the server running? Check --url.";
  }

  /** Whether {@code api}'s listing answers with that API's shape. */
  private static boolean speaks(HttpClient http, EndpointConfig cfg, Api api, Duration timeout) {
    URI uri = cfg.baseUrl().resolve(api.modelsPath(cfg.baseUrl().getRawPath()));
    HttpResponse<String> resp = get(http, cfg, uri, timeout);
    return resp.statusCode() == 200 && listed(api, json(resp.body())) != null;
  }

  /**
   * The model names of a listing in {@code api}'s shape, or null when it is not one: {@code
   * data[].id} (OpenAI, Anthropic), {@code models[].name} without Gemini's {@code models/} prefix
   * (Gemini, Ollama), {@code model_id} (TGI).
   */
  static List<String> listed(Api api, JsonNode root) {
    if (root == null || !root.isObject()) {
      return null;
    }
    List<String> names = new ArrayList<>();
    switch (api) {
      case TGI -> {
        if (!root.path("model_id").isTextual()) {
          return null;
        }
        names.add(root.get("model_id").asText());
      }
      case GEMINI, OLLAMA, OLLAMA_GENERATE -> {
        if (!root.path("models").isArray()) {
          return null;
        }
        for (JsonNode m : root.get("models")) {
          String name = m.path("name").asText("");
          boolean gemini = name.startsWith("models/");
          if (!name.isEmpty() && gemini == (api == Api.GEMINI)) {
            names.add(gemini ? name.substring("models/".length()) : name);
          }
        }
        if (names.isEmpty() && !root.get("models").isEmpty()) {
          return null; // another API's models
        }
      }
      default -> {
        if (!root.path("data").isArray()) {
          return null;
        }
        for (JsonNode m : root.get("data")) {
          if (m.hasNonNull("id")) {
            names.add(m.get("id").asText());
          }
        }
      }
    }
    return names;
  }

  /** Anthropic's and OpenAI's APIs share {@code /v1/models}, Ollama's two APIs {@code /api/tags}. */
  private static boolean sameFamily(Api a, Api b) {
    return a.modelsPath("").equals(b.modelsPath(""));
  }

  private static String keyHint(Api api) {
    return switch (api) {
      case ANTHROPIC -> " (sent as x-api-key)";
      case GEMINI -> " (sent as x-goog-api-key)";
      default -> "";
    };
  }

  /** "; this endpoint answered like ..." when an error body is clearly Anthropic's and the API is not. */
  private static String otherApi(JsonNode body, Api api) {
    boolean anthropic = body != null && body.path("type").asText("").equals("error") && body.path("error").has("type");
    return anthropic && api != Api.ANTHROPIC ? "; this endpoint answered like Anthropic's Messages API; try --api anthropic" : "";
  }

  private static String server(Api api) {
    return switch (api) {
      case OLLAMA, OLLAMA_GENERATE -> "Ollama's native API";
      case TGI -> "TGI's native API";
      case GEMINI -> "Gemini";
      default -> "an OpenAI server";
    };
  }

  private static JsonNode json(String body) {
    try {
      return body == null || body.isBlank() ? null : JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  /** Whether {@code body} starts like a JSON object or array (an API's error), not a web page. */
  private static boolean looksLikeJson(String body) {
    String t = body == null ? "" : body.strip();
    return t.startsWith("{") || t.startsWith("[");
  }

  private static String describe(IOException e) {
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
