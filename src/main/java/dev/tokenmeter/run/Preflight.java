package dev.tokenmeter.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * Asks {@code GET /v1/models} once before a run: proves the server is reachable (a clear message
 * instead of a run full of connect errors), finds the model when {@code --model} is not given, and
 * catches a wrong URL or key early. Costs no generation on the server.
 */
public final class Preflight {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What the server said. {@code warnings} are printed; they do not stop the run. */
  public record Result(List<String> models, List<String> warnings) {}

  private Preflight() {}

  public static Result check(EndpointConfig cfg, Duration timeout) {
    String path = cfg.requestPath();
    String modelsPath = path.substring(0, path.length() - cfg.api().path().length()) + "/models";
    URI base = cfg.baseUrl();
    URI uri = base.resolve(modelsPath);
    HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(timeout).GET();
    if (cfg.apiKey() != null) {
      req.header("Authorization", "Bearer " + cfg.apiKey());
    }
    cfg.headers().forEach(req::header);
    List<String> warnings = new ArrayList<>();
    HttpResponse<String> resp;
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(timeout);
    if (base.getScheme() != null && base.getScheme().equalsIgnoreCase("https")) {
      client.sslContext(cfg.tls().jdkContext());
    }
    try (HttpClient http = client.build()) {
      resp = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    } catch (SSLHandshakeException e) {
      throw new TargetException(
          "TLS handshake with " + base + " failed: " + describe(e)
              + (cfg.tls().insecure() ? "" : ". If the server's certificate is self-signed or from a private CA,"
                  + " give the CA with --ca-cert FILE, or --insecure to skip the check."));
    } catch (ConnectException e) {
      throw new TargetException(
          "cannot connect to " + base + " (connection refused): is the server running? Check --url.");
    } catch (HttpTimeoutException e) {
      throw new TargetException(
          "no answer from " + base + " within " + timeout.toSeconds() + "s: is the server up? Check --url.");
    } catch (IOException e) {
      throw new TargetException("cannot reach " + base + ": " + describe(e) + ". Check --url.");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RunFailedException("interrupted while contacting " + base);
    }
    int status = resp.statusCode();
    if (status == 401 || status == 403) {
      throw new TargetException(
          "the server refused the request to " + uri + " (HTTP " + status
              + "): give the API key with --api-key-env VAR");
    }
    if (status != 200 && !resp.body().isBlank() && !looksLikeJson(resp.body())) {
      throw new TargetException(base + " is not an OpenAI-compatible API: GET " + uri + " answered HTTP " + status
          + " with a page, not JSON. Check --url: the server's root (http://host:8000) or its API root (.../v1)");
    }
    if (status != 200) {
      warnings.add("GET " + uri + " answered HTTP " + status + "; continuing without a model list");
      return new Result(List.of(), warnings);
    }
    List<String> models = new ArrayList<>();
    try {
      JsonNode root = JSON.readTree(resp.body());
      JsonNode data = root == null ? null : root.get("data");
      if (data != null && data.isArray()) {
        for (JsonNode m : data) {
          if (m.hasNonNull("id")) {
            models.add(m.get("id").asText());
          }
        }
      } else {
        warnings.add("GET " + uri + " did not return an OpenAI model list; is --url an OpenAI-compatible server?");
      }
    } catch (IOException e) {
      warnings.add("GET " + uri + " did not return JSON; is --url an OpenAI-compatible server?");
    }
    return new Result(models, warnings);
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
