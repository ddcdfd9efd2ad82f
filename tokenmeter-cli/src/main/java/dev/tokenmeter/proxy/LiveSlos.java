package dev.tokenmeter.proxy;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.governance.Alert;
import dev.tokenmeter.governance.BurnWindow;
import dev.tokenmeter.governance.LiveSlo;
import dev.tokenmeter.governance.Severity;
import dev.tokenmeter.governance.SloAlert;
import dev.tokenmeter.governance.SloBook;
import dev.tokenmeter.telemetry.PrometheusProxyMetrics;
import java.time.InstantSource;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.DoubleConsumer;

/**
 * The proxy's live SLOs wired up: burn rates and alert states to the metrics gauges, alerts to the
 * alerts, and an evaluation every {@link #EVALUATE_EVERY_MILLIS} so that alerts resolve when
 * traffic stops. Null parts when no SLO is configured.
 *
 * @param bookOrNull the SLOs (a record sink of the proxy; {@link SloBook#snapshot()} for a
 *     dashboard), or null for none
 */
record LiveSlos(SloBook bookOrNull, ScheduledExecutorService timerOrNull) implements AutoCloseable {
  /** 10 s: the step a 5 min window rolls in. */
  static final long EVALUATE_EVERY_MILLIS = 10_000;

  static LiveSlos of(List<LiveSlo> slos, PrometheusProxyMetrics metrics, Ticker ticker, InstantSource clock,
      Consumer<Alert> alerts, long evaluateEveryMillis) {
    if (slos.isEmpty()) {
      return new LiveSlos(null, null);
    }
    Map<LiveSlo, DoubleConsumer[]> gauges = new IdentityHashMap<>();
    for (LiveSlo s : slos) {
      DoubleConsumer[] g = new DoubleConsumer[BurnWindow.values().length];
      for (BurnWindow w : BurnWindow.values()) {
        g[w.ordinal()] = metrics.sloBurnRateGauge(s.name(), w.label());
      }
      gauges.put(s, g);
    }
    SloBook book = new SloBook(slos, ticker, clock, new SloBook.Listener() {
      @Override
      public void burnRate(LiveSlo slo, BurnWindow window, double rate) {
        gauges.get(slo)[window.ordinal()].accept(rate);
      }

      @Override
      public void alert(SloAlert a) {
        metrics.sloAlert(a.slo().name(), a.severity().label(), a.transition() == SloAlert.Transition.FIRING);
        alerts.accept(a);
      }
    });
    for (LiveSlo s : slos) {
      for (Severity sev : Severity.values()) {
        metrics.sloAlert(s.name(), sev.label(), false); // every gauge present from the first scrape
      }
    }
    book.evaluate();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tokenmeter-slo");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleAtFixedRate(book::evaluate, evaluateEveryMillis, evaluateEveryMillis, TimeUnit.MILLISECONDS);
    return new LiveSlos(book, timer);
  }

  @Override
  public void close() {
    if (timerOrNull != null) {
      timerOrNull.shutdownNow();
    }
  }
}
