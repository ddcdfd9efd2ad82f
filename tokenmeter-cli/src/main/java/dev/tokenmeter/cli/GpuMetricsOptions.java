package dev.tokenmeter.cli;

import dev.tokenmeter.run.GpuWatch;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code --gpu-metrics URL[,URL...]|nvml}, {@code --gpu-metrics-interval D}: bench's GPU telemetry. */
final class GpuMetricsOptions {
  @Option(
      names = "--gpu-metrics",
      paramLabel = "URL[,URL...]|nvml",
      description = "Read GPU power, utilisation and memory during the run from NVIDIA DCGM exporters or AMD"
          + " device-metrics-exporters (their /metrics URLs, comma-separated, one per node), or 'nvml' to ask the"
          + " local nvidia-smi; puts energy per stage, joules per output token and tokens/s per kW beside the"
          + " client's figures (docs/METRICS.md, \"GPU power and energy\").")
  String spec;

  @Option(
      names = "--gpu-metrics-interval",
      paramLabel = "DURATION",
      description = "Time between two GPU readings (default: ${DEFAULT-VALUE}).")
  String interval = "1s";

  /** The settings; null when {@code --gpu-metrics} was not given. */
  GpuWatch.Settings resolve(double pricePerKwh, String currency) {
    if (spec == null) {
      if (!Double.isNaN(pricePerKwh)) {
        throw new UsageException("--power-price prices the GPUs' energy: give --gpu-metrics URL (or nvml) too");
      }
      return null;
    }
    long nanos = Durations.parseNanos("--gpu-metrics-interval", interval);
    if (nanos <= 0) {
      throw new UsageException("--gpu-metrics-interval must be positive, e.g. 1s");
    }
    if (spec.strip().equalsIgnoreCase("nvml")) {
      return new GpuWatch.Settings(List.of(), true, nanos, pricePerKwh, currency);
    }
    List<URI> urls = new ArrayList<>();
    for (String part : spec.split(",")) {
      urls.add(url(part.strip()));
    }
    return new GpuWatch.Settings(urls, false, nanos, pricePerKwh, currency);
  }

  private static URI url(String text) {
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw new UsageException("--gpu-metrics: not a URL: '" + text + "' (e.g. http://gpu-node:9400/metrics, or nvml)");
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new UsageException("--gpu-metrics: give an exporter's http(s) URL such as http://gpu-node:9400/metrics,"
          + " or nvml; got '" + text + "'");
    }
    return uri.getPath() == null || uri.getPath().isEmpty() ? uri.resolve("/metrics") : uri;
  }
}
