package dev.tokenmeter.governance;

import java.util.concurrent.TimeUnit;

/**
 * The rolling windows burn rates are measured over: the long and short windows of the SRE
 * workbook's multiwindow, multi-burn-rate alerts (docs/PROXY.md, "SLOs and alerts").
 */
public enum BurnWindow {
  M5("5m", TimeUnit.MINUTES.toNanos(5)),
  M30("30m", TimeUnit.MINUTES.toNanos(30)),
  H1("1h", TimeUnit.HOURS.toNanos(1)),
  H6("6h", TimeUnit.HOURS.toNanos(6)),
  D3("3d", TimeUnit.DAYS.toNanos(3));

  private final String label;
  private final long nanos;

  BurnWindow(String label, long nanos) {
    this.label = label;
    this.nanos = nanos;
  }

  /** {@code 5m}, {@code 3d}: the {@code window} label, and a Prometheus range. */
  public String label() {
    return label;
  }

  public long nanos() {
    return nanos;
  }
}
