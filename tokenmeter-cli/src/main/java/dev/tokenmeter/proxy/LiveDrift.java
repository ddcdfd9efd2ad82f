package dev.tokenmeter.proxy;

import dev.tokenmeter.governance.Alert;
import dev.tokenmeter.governance.DriftBaseline;
import dev.tokenmeter.governance.DriftMonitor;
import dev.tokenmeter.governance.DriftNotice;
import dev.tokenmeter.governance.DriftReport;
import dev.tokenmeter.telemetry.PrometheusProxyMetrics;
import java.time.Duration;
import java.time.InstantSource;
import java.util.function.Consumer;

/**
 * The proxy's drift watch wired up: the monitor on the record path against a bench run's workload,
 * its figures to the metrics and its notices to the alerts.
 */
final class LiveDrift {
  private LiveDrift() {}

  /** A monitor against {@code baselineOrNull}, or null when it is null. */
  static DriftMonitor of(DriftBaseline baselineOrNull, Duration window, PrometheusProxyMetrics metrics,
      InstantSource clock, Consumer<Alert> alerts) {
    if (baselineOrNull == null) {
      return null;
    }
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
        alerts.accept(n);
      }
    };
    DriftMonitor.Settings d = DriftMonitor.Settings.DEFAULT;
    return new DriftMonitor(baselineOrNull, new DriftMonitor.Settings(window, d.maxRequests(), d.checkEvery()), clock,
        listener);
  }
}
