package dev.tokenmeter.client;

import java.net.URI;
import java.util.Map;
import java.util.Objects;

/**
 * Where and how to send requests.
 *
 * @param baseUrl server root ({@code http://host:8000}) or API root ({@code http://host:8000/v1});
 *     the API's root ({@code /v1}, {@code /v1beta}, {@code /api}) is added when the URL does not
 *     end with it, then the API's route ({@link Api#requestPath})
 * @param api which API the server speaks
 * @param model the model (body field, or Gemini's path); null or empty to omit it
 * @param apiKey the API key, sent as the API wants it ({@code Authorization: Bearer}, {@code
 *     x-api-key}, {@code x-goog-api-key}); null for none
 * @param headers extra request headers
 * @param extraBodyJson a JSON object whose fields are merged into every request body last (they
 *     win over tokenmeter's own), e.g. {@code {"ignore_eos":true}}; null for none; anything
 *     but a JSON object is an {@link IllegalArgumentException} naming {@code --extra-body}
 * @param stream request a streamed (SSE) response
 * @param includeUsage send {@code stream_options.include_usage} when streaming
 * @param connectTimeoutMillis TCP connect timeout (TLS handshake included for https)
 * @param tls how an https server's certificate is checked
 */
public record EndpointConfig(
    URI baseUrl,
    Api api,
    String model,
    String apiKey,
    Map<String, String> headers,
    String extraBodyJson,
    boolean stream,
    boolean includeUsage,
    int connectTimeoutMillis,
    TlsSettings tls) {
  public EndpointConfig {
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(api, "api");
    headers = Map.copyOf(headers);
    // Checked here, where the command line builds its config, so a typo in --extra-body is a
    // usage error found before the pre-flight contacts the server (it was found only when the
    // endpoint was created, after the pre-flight: exit 1 "cannot connect" for an unreachable
    // server, otherwise a results folder holding a summary.json of no stages).
    RequestBodyEncoder.parseExtra(extraBodyJson);
  }

  /** A config checking https certificates against the JDK's default trust store. */
  public EndpointConfig(
      URI baseUrl,
      Api api,
      String model,
      String apiKey,
      Map<String, String> headers,
      String extraBodyJson,
      boolean stream,
      boolean includeUsage,
      int connectTimeoutMillis) {
    this(baseUrl, api, model, apiKey, headers, extraBodyJson, stream, includeUsage, connectTimeoutMillis,
        TlsSettings.DEFAULT);
  }

  /**
   * The full request path (query included, for Gemini's {@code alt=sse}): the URL's path, then the
   * API's root and route ({@link Api#requestPath}).
   */
  public String requestPath() {
    return api.requestPath(baseUrl.getRawPath(), model, stream);
  }

  /** Where the server lists its models for this API ({@link Api#modelsPath}). */
  public String modelsPath() {
    return api.modelsPath(baseUrl.getRawPath());
  }

  /**
   * The body of the smallest real request this API takes: the prompt "hi", one output token,
   * streamed as configured, with {@code --extra-body} merged; for a pre-flight that asks the
   * generation route itself when the model list does not answer.
   */
  public byte[] oneTokenRequestBody() {
    return new RequestBodyEncoder(this).encode(new dev.tokenmeter.core.request.RequestSpec(
        0, new dev.tokenmeter.core.request.Prompt.Text("hi"), 1, false, java.util.OptionalInt.of(1)));
  }
}
