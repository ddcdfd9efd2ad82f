package dev.tokenmeter.governance;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.ledger.TenantSpend;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Keeps a {@link BudgetBook} abreast of the rest of a fleet: every interval, on its own daemon
 * thread, reads from the shared ledger what the other proxies spent in each budget's current period
 * and hands it to the book ({@link BudgetBook#others}). Admission never waits for it: the book
 * holds the last value read.
 *
 * <p>A failed read keeps the last values; the outage is one log line when it starts (with the
 * error) and one when reads succeed again, and each failed round is counted ({@link #failures()},
 * {@code tokenmeter_proxy_budget_sync_failures_total}). docs/PROXY.md, "Budgets".
 *
 * <p>{@link #syncOnce()} holds the logic and may be called by a test; {@link #start} runs it. Thread-safe.
 */
public final class BudgetSync implements AutoCloseable {
  /** Reads of the fleet's spend are this far apart by default: 1 s. */
  public static final long DEFAULT_INTERVAL_NANOS = 1_000_000_000L;

  /** What the rest of the fleet spent: the ledger's rows of {@code tenant} since {@code since}, less this proxy's. */
  @FunctionalInterface
  public interface Source {
    TenantSpend othersSpent(String tenant, Instant since);
  }

  private final BudgetBook book;
  private final Source source;
  private final Consumer<String> log;
  private final Ticker ticker;
  private final AtomicLong failures = new AtomicLong();
  private long outageSinceNanos = -1;
  private final Object lifecycle = new Object(); // not this: a round may hold this for a slow query
  private ScheduledExecutorService executor;

  /**
   * @param log where the outage lines go (one line each, without a prefix)
   */
  public BudgetSync(BudgetBook book, Source source, Consumer<String> log, Ticker ticker) {
    this.book = book;
    this.source = source;
    this.log = log;
    this.ticker = ticker;
  }

  /**
   * Reads once: one query per tenant and period start, then hands each budget its value. A failed
   * query ends the round; the budgets not yet updated keep their last values.
   *
   * @return whether every read succeeded
   */
  public synchronized boolean syncOnce() {
    List<BudgetBook.Reading> readings = book.toRead();
    Map<String, TenantSpend> read = new HashMap<>(); // "tenant@since": budgets in tokens and money share one
    try {
      for (BudgetBook.Reading r : readings) {
        TenantSpend spend = read.computeIfAbsent(r.budget().tenant() + "@" + r.since(),
            k -> source.othersSpent(r.budget().tenant(), r.since()));
        book.others(r, spend);
      }
    } catch (RuntimeException e) {
      failures.incrementAndGet();
      if (outageSinceNanos < 0) {
        outageSinceNanos = ticker.nanos();
        log.accept("budgets cannot read the rest of the fleet's spend from the ledger (" + oneLine(e)
            + "); they keep the last values read, add this proxy's own spend, and retry every interval"
            + " (tokenmeter_proxy_budget_sync_failures_total)");
      }
      return false;
    }
    if (outageSinceNanos >= 0) {
      long seconds = Math.max(1, Math.round((ticker.nanos() - outageSinceNanos) / 1e9));
      log.accept("budgets read the rest of the fleet's spend again after about " + seconds + " s");
      outageSinceNanos = -1;
    }
    return true;
  }

  /** Rounds that failed so far. */
  public long failures() {
    return failures.get();
  }

  /** Starts reading every {@code intervalNanos} (after each round ends) on a daemon thread; returns this. */
  public BudgetSync start(long intervalNanos) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("the budget sync interval must be positive");
    }
    synchronized (lifecycle) {
      executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tokenmeter-budget-sync");
        t.setDaemon(true);
        return t;
      });
      executor.scheduleWithFixedDelay(this::syncOnce, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
    }
    return this;
  }

  /** Stops reading (a read in progress is interrupted). */
  @Override
  public void close() {
    ScheduledExecutorService e;
    synchronized (lifecycle) {
      e = executor;
      executor = null;
    }
    if (e != null) {
      e.shutdownNow();
    }
  }

  private static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
