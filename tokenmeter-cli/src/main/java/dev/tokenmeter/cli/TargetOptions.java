package dev.tokenmeter.cli;

import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.client.TlsSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** Which server to measure and how to talk to it. */
final class TargetOptions {
  @Option(names = "--url", paramLabel = "URL", description = "Server root or API root, e.g. http://127.0.0.1:8000 or https://api.example.com/v1.")
  String url;

  @Option(names = "--api", paramLabel = "API", description = "The API the server speaks: chat (/v1/chat/completions), completions (/v1/completions), anthropic (/v1/messages), responses (/v1/responses), gemini (/v1beta/models/MODEL:streamGenerateContent), tgi (/generate_stream), ollama (/api/chat) or ollama-generate (/api/generate) (default: ${DEFAULT-VALUE}).")
  String api = "chat";

  @Option(names = "--model", paramLabel = "NAME", description = "The model (in the body, or in Gemini's path). Default: the first model the server lists (/v1/models, /v1beta/models, /api/tags, TGI's /info).")
  String model;

  @Option(names = "--api-key-env", paramLabel = "VAR", description = "Environment variable holding the API key (sent as 'Authorization: Bearer', or as 'x-api-key' for anthropic and 'x-goog-api-key' for gemini).")
  String apiKeyEnv;

  @Option(names = "--header", paramLabel = "'K: V'", description = "Extra request header; repeatable.")
  List<String> headers = new ArrayList<>();

  @Option(names = "--extra-body", paramLabel = "JSON", description = "JSON object merged into every request body, e.g. '{\"ignore_eos\":true}'.")
  String extraBody;

  @Option(names = "--no-stream", description = "Ask for whole (non-streamed) responses; TTFT then equals the full latency.")
  boolean noStream;

  @Option(names = "--no-usage", description = "Do not send stream_options.include_usage (for servers that reject it).")
  boolean noUsage;

  @Option(names = "--connect-timeout", paramLabel = "DURATION", description = "TCP connect timeout (default: ${DEFAULT-VALUE}).")
  String connectTimeout = "10s";

  @Option(names = "--ca-cert", paramLabel = "FILE", description = "PEM file of the CA (or self-signed certificate) to trust for an https --url, instead of the JDK's default trust store.")
  Path caCert;

  @Option(names = "--insecure", description = "Accept any certificate of an https --url (test servers only: traffic stays encrypted, the server is not verified).")
  boolean insecure;

  /** A field-by-field copy (the header list copied too), for a {@code --variant} to change. */
  TargetOptions copy() {
    TargetOptions t = new TargetOptions();
    t.url = url;
    t.api = api;
    t.model = model;
    t.apiKeyEnv = apiKeyEnv;
    t.headers = new ArrayList<>(headers);
    t.extraBody = extraBody;
    t.noStream = noStream;
    t.noUsage = noUsage;
    t.connectTimeout = connectTimeout;
    t.caCert = caCert;
    t.insecure = insecure;
    return t;
  }

  TlsSettings tls() {
    if (caCert != null && insecure) {
      throw new UsageException("give either --ca-cert or --insecure, not both");
    }
    if (caCert != null && !Files.isReadable(caCert)) {
      throw new UsageException("--ca-cert " + caCert + ": no such readable file; give the server's CA certificate as a PEM file");
    }
    TlsSettings t = new TlsSettings(caCert, insecure);
    try {
      t.jdkContext(); // reads and checks the PEM file now, before any connection
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    return t;
  }

  URI uri() {
    if (url == null || url.isBlank()) {
      throw new UsageException("--url is required, e.g. --url http://127.0.0.1:8000");
    }
    if (!url.contains("://")) {
      // "127.0.0.1:8000" said "Illegal character in scheme name", "localhost:8000" took localhost for a scheme
      throw new UsageException("--url '" + url + "' has no scheme: give --url http://" + url.strip()
          + " (or https://...)");
    }
    try {
      URI u = new URI(url.trim());
      if (u.getScheme() == null || u.getHost() == null) {
        throw new UsageException("--url '" + url + "' needs a scheme and host, e.g. http://127.0.0.1:8000");
      }
      if (!u.getScheme().equalsIgnoreCase("http") && !u.getScheme().equalsIgnoreCase("https")) {
        throw new UsageException("--url '" + url + "': the scheme must be http or https, e.g. http://127.0.0.1:8000");
      }
      return u;
    } catch (URISyntaxException e) {
      throw new UsageException("--url '" + url + "' is not a URL: " + e.getReason());
    }
  }

  String apiKey() {
    if (apiKeyEnv == null) {
      return null;
    }
    String v = System.getenv(apiKeyEnv);
    if (v == null || v.isEmpty()) {
      throw new UsageException("--api-key-env " + apiKeyEnv + ": that environment variable is not set");
    }
    return v.trim();
  }

  Map<String, String> headerMap() {
    Map<String, String> m = new LinkedHashMap<>();
    for (String h : headers) {
      int i = h.indexOf(':');
      if (i <= 0) {
        throw new UsageException("--header '" + h + "' must look like 'Name: value'");
      }
      m.put(h.substring(0, i).trim(), h.substring(i + 1).trim());
    }
    return m;
  }

  EndpointConfig config(String resolvedModel) {
    long connectNanos = Durations.parseNanos("--connect-timeout", connectTimeout);
    return new EndpointConfig(
        uri(),
        Api.parse(api),
        resolvedModel,
        apiKey(),
        headerMap(),
        extraBody,
        !noStream,
        !noUsage,
        (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectNanos / 1_000_000)),
        tls());
  }
}
