package dev.tokenmeter.proxy;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.governance.DriftBaseline;
import dev.tokenmeter.governance.DriftMonitor;
import dev.tokenmeter.governance.DriftNotice;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerWriter;
import dev.tokenmeter.ledger.MeteredRequestSink;
import dev.tokenmeter.telemetry.OtlpPush;
import dev.tokenmeter.telemetry.PrometheusProxyMetrics;
import java.io.PrintStream;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

/**
 * A metering proxy from start to stop, as {@code run/BenchRun} is a benchmark: it owns the ledger's
 * writer, the metrics, the governance (budgets, live SLOs, drift, and the one {@link Alerts} they
 * all speak through), the one list of record sinks, the server, the watch and the OTLP push, starts
 * them in that order and stops them in the reverse one. The command line resolves and checks the
 * settings into {@link Parts}; everything after that happens here.
 *
 * <pre>{@code
 * try (ProxyRun run = ProxyRun.start(parts, Ticker.system(), InstantSource.system(), System.err)) {
 *   System.err.println(run.startLine());
 *   awaitCtrlC();
 * } // the ledger is drained and closed, the last line printed
 * }</pre>
 */
public final class ProxyRun implements AutoCloseable {

  /**
   * What a run is made of, resolved and checked by the command line.
   *
   * @param ledgerOrNull the opened (migrated) ledger, or null for {@code --ledger none}; the run
   *     closes its writer
   * @param baselineOrNull the bench run's workload to watch drift against, or null
   * @param otlpOrNull where to push the metrics over OTLP, or null
   */
  public record Parts(ProxyConfig config, Ledger ledgerOrNull, DriftBaseline baselineOrNull, Duration driftWindow,
      OtlpPush.Settings otlpOrNull, TokenCounters tokenCounters, String proxyId) {}

  /** The proxy could not start (a port in use, a ledger it cannot read): one line for the user. */
  public static final class CannotStart extends RuntimeException {
    public CannotStart(String message) {
      super(message);
    }
  }

  private final Parts parts;
  private final PrintStream log;
  private LedgerWriter writer;
  private dev.tokenmeter.governance.BudgetSync sync;
  private Alerts alerts;
  private LiveSlos slos;
  private ProxyServer server;
  private OtlpPush push;
  private ProxyWatch watch;
  private boolean closed;

  private ProxyRun(Parts parts, PrintStream log) {
    this.parts = parts;
    this.log = log;
  }

  /**
   * Opens everything and starts listening; on any failure, closes what it had opened.
   *
   * @throws CannotStart when the address cannot be bound or the budgets' spend cannot be read
   * @throws IllegalArgumentException when the listener's TLS files do not load, in one line
   */
  public static ProxyRun start(Parts parts, Ticker ticker, InstantSource clock, PrintStream log) {
    ProxyRun run = new ProxyRun(parts, log);
    try {
      run.open(ticker, clock);
      return run;
    } catch (RuntimeException e) {
      run.close();
      throw e;
    }
  }

  private void open(Ticker ticker, InstantSource clock) {
    ProxyConfig cfg = parts.config();
    Ledger ledger = parts.ledgerOrNull();
    List<MeteredRequestSink> sinks = new ArrayList<>();
    if (ledger != null) {
      writer = ledger.writer(parts.proxyId());
      sinks.add(writer);
    }
    PrometheusProxyMetrics metrics = PrometheusProxyMetrics.create(
        PrometheusProxyMetrics.Limits.DEFAULT, cfg.routing().upstreams().keySet());
    alerts = new Alerts(cfg.budgets().webhookOrNull(), log);
    java.time.Instant started = clock.instant(); // before the first request: every row of this run starts after it
    BudgetBook budgets = LiveBudgets.of(cfg.budgets(), cfg.prices(), ledger, parts.proxyId(), started, metrics, clock,
        alerts, log);
    sync = LiveBudgets.sync(budgets, cfg.budgets(), ledger, parts.proxyId(), started, metrics, log);
    slos = LiveSlos.of(cfg.slos(), metrics, ticker, clock, alerts, LiveSlos.EVALUATE_EVERY_MILLIS);
    if (slos.bookOrNull() != null) {
      sinks.add(slos.bookOrNull());
    }
    DriftMonitor drift = LiveDrift.of(parts.baselineOrNull(), parts.driftWindow(), metrics, clock, alerts);
    if (drift != null) {
      sinks.add(drift);
    }
    try {
      server = ProxyServer.start(cfg, sinks, metrics, budgets, parts.tokenCounters(), ticker, clock);
    } catch (ProxyServer.CannotListen e) {
      throw new CannotStart(e.getMessage());
    }
    if (parts.otlpOrNull() != null) {
      push = metrics.push(parts.otlpOrNull(), clock, log);
    }
    if (writer != null) {
      metrics.watchLedger(writer::failedCommits, writer::dropped);
    }
    LedgerWriter w = writer;
    watch = new ProxyWatch(w == null ? null : () -> ProxyWatch.LedgerCounts.of(w), server::refusals, log, ticker).start();
    server.board().ledgerHealth(watch::ledgerHealth); // the dashboard's banner while the ledger fails
  }

  /**
   * The proxy's whole life on the command line: starts it, prints its start line to {@code log},
   * serves until Ctrl-C (a shutdown hook) or until the calling thread is interrupted (tests, an
   * embedding program), then closes it (requests in flight end, the ledger drains) and prints its
   * stop line. Ctrl-C's hook waits for that close, so the JVM exits with every record written.
   *
   * @throws CannotStart when it cannot start (nothing is left open)
   */
  public static void serveUntilStopped(Parts parts, Ticker ticker, InstantSource clock, PrintStream log) {
    ProxyRun run = start(parts, ticker, clock, log);
    log.println(run.startLine());
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      stop.countDown();
      try {
        closed.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "tokenmeter-proxy-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      stop.await();
    } catch (InterruptedException e) {
      // stopped by the thread that runs us: same as Ctrl-C
    } finally {
      try {
        run.close();
        log.println(run.stopLine());
      } finally {
        closed.countDown();
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the hook is running: it waited for us
        }
      }
    }
  }

  /** The server's address ({@code http://127.0.0.1:8080}). */
  public String baseUrl() {
    return server.baseUrl();
  }

  /** The line the proxy starts with: where it listens, what it forwards to, where it records. */
  public String startLine() {
    ProxyConfig cfg = parts.config();
    Ledger ledger = parts.ledgerOrNull();
    String base = server.baseUrl();
    return Alerts.PREFIX + "listening on " + base + " -> " + describe(cfg.routing())
        + "; metrics at " + base + "/metrics; dashboard at " + base + "/dashboard"
        + (cfg.adminTokenOrNull() != null ? " (admin token)" : cfg.listen().getAddress().isLoopbackAddress() ? ""
            : " (closed: no --admin-token)")
        + "; ledger " + (ledger == null ? "none" : ledger.target().display() + " as proxy " + parts.proxyId())
        + (parts.baselineOrNull() == null ? "" : "; drift against " + parts.baselineOrNull().source() + " over "
            + DriftNotice.words(parts.driftWindow()))
        + (parts.otlpOrNull() == null ? "" : "; pushing metrics to " + parts.otlpOrNull().endpoint()) + "; Ctrl-C to stop";
  }

  /** The line the proxy stops with: what it metered, what was dropped; call after {@link #close()}. */
  public String stopLine() {
    String ledgerLine = writer == null ? ""
        : ", " + writer.written() + " written to the ledger, " + writer.dropped() + " dropped by it";
    return Alerts.PREFIX + "stopped; " + server.recorded() + " requests metered, " + server.droppedRecords()
        + " records dropped (record queue full)" + ledgerLine
        + (server.refusedConnections() == 0 ? "" : ", " + server.refusedConnections()
            + " connections refused (--max-connections)");
  }

  private static String describe(Routing routing) {
    String ups = routing.upstreams().values().stream().map(Upstream::toString).collect(Collectors.joining(", "));
    return routing.balanceOrNull() == null ? ups : ups + " (balance " + routing.balanceOrNull().policy().flag() + ")";
  }

  /**
   * Stops the server (requests in flight end), then the watch, the OTLP push (after the server, so
   * its final push holds every request metered), the SLO timer and the alerts (queued webhook posts
   * finish, 2 s at most), and last drains and closes the ledger writer; idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException first = null;
    for (AutoCloseable c : new AutoCloseable[] {server, sync, watch, push, slos, alerts, writer}) {
      if (c == null) {
        continue;
      }
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
