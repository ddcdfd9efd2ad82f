package dev.tokenmeter.cli;

import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.run.BenchRun;
import dev.tokenmeter.run.ServerWatch;
import java.net.URI;
import java.net.URISyntaxException;
import picocli.CommandLine.Option;

/** {@code --server-metrics [URL]}, {@code --server-metrics-interval D}: bench's scrape of the server. */
final class ServerMetricsOptions {
  @Option(
      names = "--server-metrics",
      paramLabel = "URL",
      arity = "0..1",
      fallbackValue = "",
      description = "Scrape the server's Prometheus metrics during the run (default URL: the target's /metrics) and put"
          + " its queue, batch, KV cache and its own TTFT/queue/prefill times beside the client's (docs/METRICS.md,"
          + " \"Server metrics\"). vLLM, SGLang, TGI, llama.cpp and Triton are read by name; others keep the raw series.")
  String url;

  @Option(
      names = "--server-metrics-interval",
      paramLabel = "DURATION",
      description = "Time between two scrapes (default: ${DEFAULT-VALUE}).")
  String interval = "1s";

  /** The scrape's settings for {@code target}; null when {@code --server-metrics} was not given. */
  ServerWatch.Settings resolve(EndpointConfig target) {
    if (url == null) {
      return null;
    }
    long nanos = Durations.parseNanos("--server-metrics-interval", interval);
    if (nanos <= 0) {
      throw new UsageException("--server-metrics-interval must be positive, e.g. 1s");
    }
    URI uri;
    if (url.isBlank()) {
      uri = target.baseUrl().resolve("/metrics");
    } else {
      try {
        uri = new URI(url.strip());
      } catch (URISyntaxException e) {
        throw new UsageException("--server-metrics: not a URL: " + url + " (e.g. http://127.0.0.1:8000/metrics)");
      }
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
        throw new UsageException("--server-metrics: give an http(s) URL such as http://127.0.0.1:8000/metrics, got " + url);
      }
    }
    return BenchRun.serverMetrics(uri, nanos);
  }
}
