package dev.tokenmeter.cli;

import dev.tokenmeter.run.LiveExport;
import dev.tokenmeter.telemetry.OtlpPush;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import picocli.CommandLine.Option;

/** {@code bench}'s live export: {@code --metrics-port}, {@code --otlp} and their settings. */
final class ExportOptions {
  @Option(names = "--metrics-port", paramLabel = "PORT", description = "Serve the run's live client metrics at"
      + " http://HOST:PORT/metrics for Prometheus while it runs (OpenTelemetry GenAI names; 0: any free port;"
      + " docs/METRICS.md, Live export).")
  Integer metricsPort;

  @Option(names = "--metrics-host", paramLabel = "HOST", description = "Address of --metrics-port (default:"
      + " 127.0.0.1; 0.0.0.0 for every interface).")
  String metricsHost = "127.0.0.1";

  @Option(names = "--metrics-linger", paramLabel = "DURATION", description = "After the run, wait up to this long"
      + " for Prometheus to scrape the final values, when it scraped during the run (default: 30s; 0: no wait).")
  String metricsLinger = "30s";

  @Option(names = "--otlp", paramLabel = "URL", description = "Push the same metrics to an OpenTelemetry collector"
      + " over OTLP/HTTP, e.g. http://127.0.0.1:4318 (/v1/metrics is added to a bare root).")
  String otlp;

  @Option(names = "--otlp-interval", paramLabel = "DURATION", description = "Time between OTLP pushes"
      + " (default: 10s); the final values are pushed once more at the end.")
  String otlpInterval = "10s";

  /** The export these options ask for ({@link LiveExport.Settings#any()} false when none). */
  LiveExport.Settings settings() {
    long lingerNanos = Durations.parseNanos("--metrics-linger", metricsLinger);
    return new LiveExport.Settings(metricsHost, metricsPort == null ? -1 : metricsPort,
        otlp(otlp, otlpInterval), Duration.ofNanos(lingerNanos));
  }

  /** {@code --otlp URL} with {@code --otlp-interval}, null when {@code url} is; shared with the proxy. */
  static OtlpPush.Settings otlp(String url, String interval) {
    if (url == null) {
      return null;
    }
    URI uri;
    try {
      uri = new URI(url.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("--otlp '" + Durations.printable(url) + "' is not a URL; give the"
          + " collector's http(s)://HOST:PORT, e.g. http://127.0.0.1:4318");
    }
    return new OtlpPush.Settings(uri, Duration.ofNanos(Durations.parseNanos("--otlp-interval", interval)));
  }
}
