package dev.tokenmeter.cli;

import dev.tokenmeter.governance.DriftBaseline;
import dev.tokenmeter.governance.DriftMonitor;
import dev.tokenmeter.governance.DriftNotice;
import dev.tokenmeter.governance.DriftReport;
import dev.tokenmeter.governance.WebhookNotifier;
import dev.tokenmeter.report.BenchWorkload;
import dev.tokenmeter.telemetry.PrometheusProxyMetrics;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;

/**
 * The proxy's drift watch wired up: the baseline read from a bench run's folder, the monitor on the
 * record path, its figures to the metrics and its notices to the log and the webhook. Null parts
 * when no --baseline is given.
 *
 * @param monitorOrNull the monitor, a record sink, or null
 * @param webhookOrNull the webhook poster, or null
 */
record ProxyDrift(DriftMonitor monitorOrNull, WebhookNotifier webhookOrNull) implements AutoCloseable {

  /**
   * The workload of the bench run in {@code dir}.
   *
   * @throws UsageException naming the folder and the fix when it is not a bench run with lengths
   */
  static DriftBaseline baseline(Path dir) {
    BenchWorkload w;
    try {
      w = BenchWorkload.read(dir);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    if (w.inputTokens().length < 2 && w.outputTokens().length < 2) {
      throw new UsageException("--baseline " + dir + ": the run recorded fewer than 2 completed requests' lengths;"
          + " name a bench run that completed requests");
    }
    long n = Math.max(w.inputTokens().length, w.outputTokens().length);
    double min = w.achievedConcurrency().stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    double max = w.achievedConcurrency().stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    return new DriftBaseline(w.inputTokens(), w.outputTokens(), w.model() == null ? Map.of() : Map.of(w.model(), n),
        min, max, plain(w.inputSpec()), plain(w.outputSpec()), w.source().toString());
  }

  /** A length option as the user wrote it, or null for a --workload profile's (the median says it better). */
  private static String plain(String specOrNull) {
    return specOrNull == null || specOrNull.startsWith(WorkloadOptions.FROM_PROFILE) ? null : specOrNull;
  }

  /** Starts watching against {@code baselineOrNull}; nothing when it is null. */
  static ProxyDrift of(DriftBaseline baselineOrNull, Duration window, URI webhookUrlOrNull,
      PrometheusProxyMetrics metrics, InstantSource clock, PrintStream log) {
    if (baselineOrNull == null) {
      return new ProxyDrift(null, null);
    }
    WebhookNotifier webhook = webhookUrlOrNull == null ? null
        : WebhookNotifier.of(webhookUrlOrNull, line -> log.println("tokenmeter proxy: " + line));
    DriftMonitor.Listener listener = new DriftMonitor.Listener() {
      @Override
      public void checked(DriftReport report) {
        for (DriftReport.Finding f : report.findings()) {
          double psi = switch (f) {
            case DriftReport.Lengths l -> l.psi().value();
            case DriftReport.Models m -> m.psi();
            case DriftReport.Concurrency c -> Double.NaN;
          };
          metrics.drift(f.dimension(), f.drifted(), psi);
        }
      }

      @Override
      public void notice(DriftNotice n) {
        log.println("tokenmeter proxy: " + n.line());
        if (webhook != null) {
          webhook.accept(n);
        }
      }
    };
    DriftMonitor.Settings d = DriftMonitor.Settings.DEFAULT;
    return new ProxyDrift(new DriftMonitor(baselineOrNull, new DriftMonitor.Settings(window, d.maxRequests(), d.checkEvery()),
        clock, listener), webhook);
  }

  /** The --drift-window flag, 15 minutes when not given. */
  static Duration window(String flagOrNull) {
    if (flagOrNull == null) {
      return DriftMonitor.Settings.DEFAULT.window();
    }
    long nanos = Durations.parseNanos("--drift-window", flagOrNull);
    if (nanos <= 0) {
      throw new UsageException("--drift-window must be positive, e.g. 15m");
    }
    return Duration.ofNanos(nanos);
  }

  @Override
  public void close() {
    if (webhookOrNull != null) {
      webhookOrNull.close();
    }
  }
}
