package dev.tokenmeter.ledger;

import dev.tokenmeter.core.time.Ticker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Writes finished requests into a {@link Ledger} from its own thread, in batches of one transaction
 * each, so the proxy's record path never waits for a disk or a database.
 *
 * <p><b>Never blocks.</b> {@link #accept} offers the record to a bounded queue and returns; when the
 * queue is full (the ledger cannot keep up, or is unreachable) the record is dropped and counted in
 * {@link #dropped()}.
 *
 * <p><b>Durable within a bound.</b> The writer thread commits a batch when its first record has
 * waited {@link Settings#flushIntervalNanos()} (200 ms by default) or when it holds {@link
 * Settings#maxBatchRows()} rows, whichever comes first. A record accepted at time {@code t} is
 * therefore committed by {@code t + flushInterval + } the time of the commit before it and its own
 * commit; {@link #durabilityBoundNanos()} states that bound as {@code flushInterval + 300 ms}
 * (commits take a few ms on a local disk). It holds while the writer keeps up: the queue not full
 * and commits under 150 ms. On SQLite (synchronous=FULL) and PostgreSQL (synchronous_commit on) a
 * committed batch survives kill -9 of the proxy and a power cut.
 *
 * <p><b>Failures.</b> A batch that fails to commit is rolled back and retried on a new connection,
 * after 200 ms doubling up to 5 s, records kept; meanwhile the queue fills and then drops. A batch
 * the database refuses for its data is written again row by row, dropping only the refused rows. {@link
 * #close()} drains the queue, then stops; records it could not write by {@link
 * Settings#closeTimeoutNanos()} are counted as dropped and reported.
 *
 * <p>Thread-safe: {@link #accept} may be called from any number of threads.
 */
public final class LedgerWriter implements MeteredRequestSink, AutoCloseable {
  /** What a commit may take, twice (the batch before and this one), in the stated bound. */
  static final long COMMIT_ALLOWANCE_NANOS = 300_000_000L;
  private static final long MAX_RETRY_NANOS = 5_000_000_000L;
  // SQLite primary result codes (sqlite3.h)
  private static final int SQLITE_TOOBIG = 18;
  private static final int SQLITE_CONSTRAINT = 19;
  private static final int SQLITE_MISMATCH = 20;

  /**
   * How the writer batches.
   *
   * @param queueCapacity records waiting at most; more are dropped
   * @param flushIntervalNanos longest time a record waits in a batch before the batch commits
   * @param maxBatchRows rows per transaction at most
   * @param closeTimeoutNanos how long {@link #close()} keeps trying to write what is queued
   */
  public record Settings(int queueCapacity, long flushIntervalNanos, int maxBatchRows, long closeTimeoutNanos) {
    /** 65,536 queued, 200 ms, 4,096 rows a batch, 10 s to close. */
    public static final Settings DEFAULTS = new Settings(65_536, 200_000_000L, 4_096, 10_000_000_000L);

    public Settings {
      if (queueCapacity < 1 || maxBatchRows < 1) {
        throw new IllegalArgumentException("ledger queue and batch must hold at least one record");
      }
      if (flushIntervalNanos <= 0 || closeTimeoutNanos < 0) {
        throw new IllegalArgumentException("ledger flush interval must be positive");
      }
    }

    /** These settings with another flush interval. */
    public Settings withFlushIntervalNanos(long nanos) {
      return new Settings(queueCapacity, nanos, maxBatchRows, closeTimeoutNanos);
    }
  }

  private final Ledger ledger;
  private final String proxyId;
  private final Settings settings;
  private final Ticker ticker;
  private final ArrayBlockingQueue<MeteredRequest> queue;
  private final LongAdder dropped = new LongAdder();
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong failedCommits = new AtomicLong();
  private final Thread thread;
  private volatile boolean closing;
  private volatile String lastError;
  private volatile int unwrittenAtClose;
  private Connection connection;
  private PreparedStatement insert;

  LedgerWriter(Ledger ledger, String proxyId, Settings settings, Ticker ticker) {
    this.ledger = ledger;
    this.proxyId = proxyId;
    this.settings = settings;
    this.ticker = ticker;
    this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
    this.thread = new Thread(this::run, "tokenmeter-ledger-writer");
    thread.setDaemon(true);
    thread.start();
  }

  /** Queues {@code request} for the ledger; never blocks. Drops and counts it when the queue is full. */
  @Override
  public void accept(MeteredRequest request) {
    if (closing || !queue.offer(request)) {
      dropped.increment();
    }
  }

  /** Records dropped so far: the queue was full, or the writer was closing or could not write them. */
  public long dropped() {
    return dropped.sum();
  }

  /** Records committed to the ledger so far. */
  public long written() {
    return written.get();
  }

  /** Records queued and not yet committed (approximate while the writer runs). */
  public int pending() {
    return queue.size();
  }

  /** Commits that failed (each retried). */
  public long failedCommits() {
    return failedCommits.get();
  }

  /** The last write failure, one line without secrets, or null when none happened. */
  public String lastError() {
    return lastError;
  }

  /** Age past which an accepted record is committed, while the writer keeps up (see the class doc). */
  public long durabilityBoundNanos() {
    return settings.flushIntervalNanos() + COMMIT_ALLOWANCE_NANOS;
  }

  private void run() {
    List<MeteredRequest> batch = new ArrayList<>(Math.min(settings.maxBatchRows(), 8_192));
    try {
      while (!closing || !queue.isEmpty()) {
        MeteredRequest first = queue.poll(settings.flushIntervalNanos(), TimeUnit.NANOSECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        fill(batch, ticker.nanos() + settings.flushIntervalNanos());
        if (!commitWithRetry(batch)) {
          break;
        }
        batch.clear();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      int left = batch.size() + queue.size();
      dropped.add(left);
      unwrittenAtClose = left;
      queue.clear();
      disconnect();
    }
  }

  /** Adds queued records to {@code batch} until it is full or {@code deadlineNanos} passes. */
  private void fill(List<MeteredRequest> batch, long deadlineNanos) throws InterruptedException {
    int max = settings.maxBatchRows();
    while (batch.size() < max) {
      queue.drainTo(batch, max - batch.size());
      long leftNanos = deadlineNanos - ticker.nanos();
      if (batch.size() >= max || closing || leftNanos <= 0) {
        return;
      }
      MeteredRequest next = queue.poll(leftNanos, TimeUnit.NANOSECONDS);
      if (next == null) {
        return;
      }
      batch.add(next);
    }
  }

  /** Commits {@code batch}, retrying with backoff; false when closing ran out of time first. */
  private boolean commitWithRetry(List<MeteredRequest> batch) throws InterruptedException {
    long backoffNanos = settings.flushIntervalNanos();
    long closeDeadline = Long.MAX_VALUE;
    while (true) {
      try {
        commit(batch);
        written.addAndGet(batch.size());
        return true;
      } catch (SQLException | RuntimeException e) {
        failedCommits.incrementAndGet();
        lastError = Ledgers.oneLine(e);
        if (e instanceof SQLException s && isDataError(s)) {
          commitOneByOne(batch);
          return true;
        }
        disconnect();
      }
      long now = ticker.nanos();
      if (closing && closeDeadline == Long.MAX_VALUE) {
        closeDeadline = now + settings.closeTimeoutNanos();
      }
      if (now + backoffNanos > closeDeadline) {
        return false;
      }
      TimeUnit.NANOSECONDS.sleep(backoffNanos);
      backoffNanos = Math.min(MAX_RETRY_NANOS, backoffNanos * 2);
    }
  }

  /**
   * After a batch failed on its data (not on the connection): commits its rows one at a time, so
   * that one row the database refuses costs that row (counted as dropped), not the batch, nor every
   * batch after it.
   */
  private void commitOneByOne(List<MeteredRequest> batch) {
    for (MeteredRequest r : batch) {
      try {
        commit(List.of(r));
        written.incrementAndGet();
      } catch (SQLException | RuntimeException e) {
        dropped.increment();
        lastError = Ledgers.oneLine(e);
        if (!(e instanceof SQLException s && isDataError(s))) {
          disconnect();
        }
      }
    }
  }

  /**
   * Whether the database refused the data rather than failed: SQLSTATE class 22 (data exception,
   * e.g. PostgreSQL's refusal of a NUL character) or 23 (constraint), or SQLite's constraint,
   * type-mismatch and too-big results (its driver leaves the SQLSTATE empty).
   */
  static boolean isDataError(SQLException e) {
    String state = e.getSQLState();
    if (state != null && (state.startsWith("22") || state.startsWith("23"))) {
      return true;
    }
    if (e instanceof org.sqlite.SQLiteException lite) {
      int primary = lite.getResultCode().code & 0xff;
      return primary == SQLITE_CONSTRAINT || primary == SQLITE_MISMATCH || primary == SQLITE_TOOBIG;
    }
    return false;
  }

  private void commit(List<MeteredRequest> batch) throws SQLException {
    if (connection == null) {
      connection = ledger.connect();
      connection.setAutoCommit(false);
      insert = connection.prepareStatement(RequestsTable.INSERT);
    }
    try {
      for (MeteredRequest r : batch) {
        RequestsTable.bind(insert, r, proxyId);
        insert.addBatch();
      }
      insert.executeBatch();
      connection.commit();
    } catch (SQLException | RuntimeException e) {
      try {
        connection.rollback();
      } catch (SQLException ignored) {
        // the connection is dropped next; its transaction goes with it
      }
      throw e;
    }
  }

  private void disconnect() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // closing a broken connection: nothing left to save
      }
      connection = null;
      insert = null;
    }
  }

  /**
   * Stops taking records, writes what is queued (waiting up to {@link Settings#closeTimeoutNanos()}
   * plus one flush interval), then closes the connection.
   *
   * @throws LedgerException when records still queued could not be written (they are counted in
   *     {@link #dropped()}, as are those dropped earlier, which do not make it throw)
   */
  @Override
  public void close() {
    closing = true;
    long waitMillis = (settings.closeTimeoutNanos() + 2 * settings.flushIntervalNanos()) / 1_000_000 + 1_000;
    try {
      thread.join(waitMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      // still backing off between retries: stop it, and let it count what it could not write
      thread.interrupt();
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    int lost = unwrittenAtClose;
    if (lost > 0) {
      throw new LedgerException(
          lost + " records were not written to the ledger " + ledger.target().display() + ": " + lastError);
    }
  }
}
