package dev.tokenmeter.telemetry;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.resources.Resource;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Pushes a registry's metrics to an OpenTelemetry collector with the OpenTelemetry Java SDK: a
 * {@link PeriodicMetricReader} every {@code interval}, exporting over OTLP/HTTP (protobuf) with
 * {@link OtlpHttpMetricExporter}; what it exports is {@link RegistryProducer}'s translation of the
 * registry, so the push and the scrape are one recording. {@link #close} exports once more, so the
 * collector gets the final values.
 *
 * <p>A failed export is one line on {@code err} the first time (the SDK's own log lines, a stack
 * trace each, are silenced), and the count of failures at {@link #close}. Thread-safe.
 */
public final class OtlpPush implements AutoCloseable {
  /** The SDK's exporters log every failure with its stack trace; tokenmeter says it in one line. */
  private static final Logger EXPORTER_LOG = Logger.getLogger("io.opentelemetry.exporter");
  private static final Logger READER_LOG = Logger.getLogger("io.opentelemetry.sdk.metrics.export");
  private static final long SHUTDOWN_SECONDS = 10;

  /**
   * Where and how often to push.
   *
   * @param url the collector's OTLP/HTTP address: a root such as {@code http://127.0.0.1:4318}
   *     gets {@code /v1/metrics} appended (as {@code OTEL_EXPORTER_OTLP_ENDPOINT}); a URL with
   *     another path is used as it is (as {@code OTEL_EXPORTER_OTLP_METRICS_ENDPOINT})
   * @param interval time between pushes
   */
  public record Settings(URI url, Duration interval) {
    public Settings {
      String scheme = url.getScheme();
      if (!"http".equals(scheme) && !"https".equals(scheme) || url.getHost() == null) {
        throw new IllegalArgumentException("--otlp " + url + ": give the collector's http(s)://HOST:PORT"
            + " (OTLP/HTTP, e.g. http://127.0.0.1:4318)");
      }
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("--otlp-interval must be positive, got " + interval.toMillis() + " ms");
      }
    }

    /** The metrics endpoint the exporter posts to. */
    public String endpoint() {
      String path = url.getRawPath();
      if (path == null || path.isEmpty() || "/".equals(path)) {
        return url.toString().replaceAll("/$", "") + "/v1/metrics";
      }
      return url.toString();
    }
  }

  private final Settings settings;
  private final SdkMeterProvider provider;
  private final PrintStream err;
  private final AtomicLong exports = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();

  private OtlpPush(PrometheusRegistry registry, Settings settings, InstantSource clock, PrintStream err) {
    this.settings = settings;
    this.err = err;
    EXPORTER_LOG.setLevel(Level.OFF);
    READER_LOG.setLevel(Level.OFF);
    MetricExporter otlp = OtlpHttpMetricExporter.builder()
        .setEndpoint(settings.endpoint())
        .setTimeout(Duration.ofSeconds(5))
        .setRetryPolicy(null) // the next push carries the same cumulative values, and close() stays quick
        .build();
    PeriodicMetricReader reader = PeriodicMetricReader.builder(new Counting(otlp))
        .setInterval(settings.interval()).build();
    provider = SdkMeterProvider.builder()
        .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(
            io.opentelemetry.api.common.AttributeKey.stringKey("service.name"), "tokenmeter"))))
        .registerMetricReader(reader)
        .registerMetricProducer(new RegistryProducer(registry, () -> epochNanos(clock)))
        .build();
  }

  /** Starts pushing {@code registry}; the first push is one interval from now. */
  static OtlpPush start(PrometheusRegistry registry, Settings settings, InstantSource clock, PrintStream err) {
    return new OtlpPush(registry, settings, clock, err);
  }

  /** Exports attempted so far, and of them failed. */
  public long exports() {
    return exports.get();
  }

  public long failures() {
    return failures.get();
  }

  /** Pushes the current values once more and stops (10 s at most); reports failures on {@code err}. */
  @Override
  public void close() {
    provider.shutdown().join(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
    long failed = failures.get();
    if (failed > 0) {
      err.println("tokenmeter: " + failed + " of " + exports.get() + " OTLP pushes to " + settings.endpoint()
          + " failed");
    }
  }

  /** {@code ": why"} in words, from the innermost cause; empty when the collector answered an error status. */
  static String reason(Throwable t) {
    if (t == null) {
      return " (the collector answered with an error status)";
    }
    Throwable root = t;
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof java.net.ConnectException) {
        return ": cannot connect (is the collector running?)";
      }
      if (c instanceof java.net.http.HttpTimeoutException || c instanceof java.net.SocketTimeoutException) {
        return ": timed out";
      }
      root = c;
    }
    return ": " + (root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage());
  }

  private static long epochNanos(InstantSource clock) {
    java.time.Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  /** The OTLP exporter, counting exports and saying the first failure in one line. */
  private final class Counting implements MetricExporter {
    private final MetricExporter inner;

    Counting(MetricExporter inner) {
      this.inner = inner;
    }

    @Override
    public CompletableResultCode export(Collection<MetricData> metrics) {
      exports.incrementAndGet();
      CompletableResultCode result = inner.export(metrics);
      result.whenComplete(() -> {
        if (!result.isSuccess() && failures.getAndIncrement() == 0) {
          err.println("tokenmeter: OTLP push to " + settings.endpoint() + " failed"
              + reason(result.getFailureThrowable()) + "; trying again every " + settings.interval().toMillis()
              + " ms");
        }
      });
      return result;
    }

    @Override
    public AggregationTemporality getAggregationTemporality(InstrumentType type) {
      return inner.getAggregationTemporality(type);
    }

    @Override
    public CompletableResultCode flush() {
      return inner.flush();
    }

    @Override
    public CompletableResultCode shutdown() {
      return inner.shutdown();
    }
  }
}
