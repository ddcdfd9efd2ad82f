package dev.tokenmeter.cli;

import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.EndpointConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** Which server to measure and how to talk to it. */
final class TargetOptions {
  @Option(names = "--url", paramLabel = "URL", description = "Server root or API root, e.g. http://127.0.0.1:8000 or https://api.example.com/v1.")
  String url;

  @Option(names = "--api", paramLabel = "API", description = "chat (/v1/chat/completions) or completions (/v1/completions) (default: ${DEFAULT-VALUE}).")
  String api = "chat";

  @Option(names = "--model", paramLabel = "NAME", description = "The model field. Default: the first model the server lists at /v1/models.")
  String model;

  @Option(names = "--api-key-env", paramLabel = "VAR", description = "Environment variable holding the API key (sent as 'Authorization: Bearer').")
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

  URI uri() {
    if (url == null || url.isBlank()) {
      throw new UsageException("--url is required, e.g. --url http://127.0.0.1:8000");
    }
    try {
      URI u = new URI(url.trim());
      if (u.getScheme() == null || u.getHost() == null) {
        throw new UsageException("--url '" + url + "' needs a scheme and host, e.g. http://127.0.0.1:8000");
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
        (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectNanos / 1_000_000)));
  }
}
