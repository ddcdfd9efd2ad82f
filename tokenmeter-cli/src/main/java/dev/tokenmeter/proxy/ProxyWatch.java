package dev.tokenmeter.proxy;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.ledger.LedgerWriter;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the running proxy says in its log, so that nothing it drops or refuses is silent: one line
 * when the ledger stops committing (with its last error) and one when it commits again (with how
 * long it failed and how many records it dropped meanwhile); and, at most once a minute, how many
 * requests the proxy refused itself, by reason (each is also a ledger row and a count at {@code
 * /metrics}). docs/PROXY.md, "Refusals and outages".
 *
 * <p>{@link #check()} holds the logic and may be called by a test; {@link #start} runs it every
 * {@link #CHECK_EVERY_MILLIS} on a daemon thread. Thread-safe.
 */
public final class ProxyWatch implements AutoCloseable {
  /** How often the watch looks. */
  public static final long CHECK_EVERY_MILLIS = 2_000;

  /** At most one refusal line per this long (the first refusal is said at the next check). */
  static final long REFUSALS_EVERY_NANOS = 60_000_000_000L;

  /** The ledger writer's counters at one instant. */
  public record LedgerCounts(long written, long failedCommits, long dropped, String lastErrorOrNull) {
    /** The counters of {@code w} now. */
    public static LedgerCounts of(LedgerWriter w) {
      return new LedgerCounts(w.written(), w.failedCommits(), w.dropped(), w.lastError());
    }
  }

  private final Supplier<LedgerCounts> ledgerOrNull;
  private final Supplier<Map<String, Long>> refusals;
  private final PrintStream log;
  private final Ticker ticker;
  private ScheduledExecutorService executor;
  private LedgerCounts last;
  private long outageSinceNanos = -1;
  private long droppedBeforeOutage;
  private Map<String, Long> refusalsSaid = Map.of();
  private boolean saidRefusals;
  private long refusalsSaidAtNanos;

  /**
   * @param ledgerOrNull the ledger writer's counters, or null when there is no ledger
   * @param refusals the proxy's refusals so far by reason ({@link ProxyServer#refusals()})
   */
  public ProxyWatch(Supplier<LedgerCounts> ledgerOrNull, Supplier<Map<String, Long>> refusals, PrintStream log,
      Ticker ticker) {
    this.ledgerOrNull = ledgerOrNull;
    this.refusals = refusals;
    this.log = log;
    this.ticker = ticker;
    this.last = ledgerOrNull == null ? null : ledgerOrNull.get();
    this.refusalsSaidAtNanos = ticker.nanos() - REFUSALS_EVERY_NANOS;
  }

  /** Starts checking every {@link #CHECK_EVERY_MILLIS} on a daemon thread; returns this. */
  public synchronized ProxyWatch start() {
    executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tokenmeter-proxy-watch");
      t.setDaemon(true);
      return t;
    });
    executor.scheduleWithFixedDelay(this::check, CHECK_EVERY_MILLIS, CHECK_EVERY_MILLIS, TimeUnit.MILLISECONDS);
    return this;
  }

  /** Looks once: says an outage's start or end, and the refusals since the last line when due. */
  public synchronized void check() {
    long now = ticker.nanos();
    if (ledgerOrNull != null) {
      ledger(ledgerOrNull.get(), now);
    }
    if (now - refusalsSaidAtNanos >= REFUSALS_EVERY_NANOS) {
      Map<String, Long> r = refusals.get();
      Map<String, Long> since = new TreeMap<>();
      long total = 0;
      for (Map.Entry<String, Long> e : r.entrySet()) {
        long n = e.getValue() - refusalsSaid.getOrDefault(e.getKey(), 0L);
        if (n > 0) {
          since.put(e.getKey(), n);
          total += n;
        }
      }
      if (total > 0) {
        StringBuilder by = new StringBuilder();
        since.forEach((reason, n) -> by.append(by.isEmpty() ? "" : ", ").append(reason).append(' ').append(count(n)));
        log.println("tokenmeter proxy: refused " + count(total) + (total == 1 ? " request" : " requests")
            + (saidRefusals ? " since the last such line" : " since the proxy started") + " (" + by
            + "); each is a ledger row with upstream '-' and counted in tokenmeter_proxy_refused_requests_total");
        refusalsSaid = Map.copyOf(r);
        saidRefusals = true;
        refusalsSaidAtNanos = now;
      }
    }
  }

  /**
   * The ledger's health as of the last {@link #check()}, for the dashboard: failing from the check
   * that saw a commit fail to the one that saw a commit succeed with no new failure.
   */
  public synchronized dev.tokenmeter.proxy.dashboard.BoardView.Ledger ledgerHealth() {
    if (ledgerOrNull == null) {
      return dev.tokenmeter.proxy.dashboard.BoardView.Ledger.NONE;
    }
    boolean failing = outageSinceNanos >= 0;
    return new dev.tokenmeter.proxy.dashboard.BoardView.Ledger(failing ? "failing" : "ok",
        failing ? Math.max(0, Math.round((ticker.nanos() - outageSinceNanos) / 1e9)) : null,
        last.failedCommits(), last.dropped(), failing ? last.dropped() - droppedBeforeOutage : 0,
        failing ? last.lastErrorOrNull() : null);
  }

  private void ledger(LedgerCounts c, long now) {
    if (outageSinceNanos < 0 && c.failedCommits() > last.failedCommits()) {
      outageSinceNanos = now;
      droppedBeforeOutage = last.dropped();
      log.println("tokenmeter proxy: the ledger cannot commit (" + (c.lastErrorOrNull() == null ? "no reason given"
          : c.lastErrorOrNull()) + "); records wait in its queue and are retried, and are dropped once the"
          + " queue is full (tokenmeter_proxy_ledger_failed_commits_total, tokenmeter_proxy_ledger_dropped_records_total)");
    } else if (outageSinceNanos >= 0 && c.failedCommits() == last.failedCommits() && c.written() > last.written()) {
      long seconds = Math.max(1, Math.round((now - outageSinceNanos) / 1e9));
      log.println("tokenmeter proxy: the ledger commits again after about " + seconds + " s; "
          + count(c.dropped() - droppedBeforeOutage) + " records dropped during the outage");
      outageSinceNanos = -1;
    }
    last = c;
  }

  private static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** Stops the checks. */
  @Override
  public synchronized void close() {
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
  }
}
