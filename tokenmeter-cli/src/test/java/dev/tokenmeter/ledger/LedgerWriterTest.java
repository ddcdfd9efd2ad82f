package dev.tokenmeter.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerWriterTest {
  private static final long MS = 1_000_000L;
  @TempDir Path dir;

  private Ledger sqlite() {
    return Ledgers.open(dir.resolve("ledger.db").toString(), Map.of());
  }

  @Test
  void everyFieldReadsBackAsWritten() throws Exception {
    Ledger ledger = sqlite();
    List<MeteredRequest> sent = new java.util.ArrayList<>();
    try (LedgerWriter w = ledger.writer()) {
      for (int i = 0; i < 50; i++) {
        MeteredRequest r = LedgerFixtures.sample(i, 1_700_000_000_000L + i);
        sent.add(r);
        w.accept(r);
      }
    }
    List<MeteredRequest> back = LedgerFixtures.readAll(ledger);
    assertThat(back).hasSize(50);
    for (int i = 0; i < 50; i++) {
      assertThat(LedgerFixtures.same(sent.get(i), back.get(i))).as("row %d: %s vs %s", i, sent.get(i), back.get(i)).isTrue();
    }
    // unknowns are stored as NULL and come back as -1 / NaN / null
    MeteredRequest unknown = back.get(4);
    assertThat(unknown.inputTokens()).isEqualTo(-1);
    assertThat(unknown.ttftNanos()).isEqualTo(-1);
    assertThat(unknown.tpotNanos()).isNaN();
    assertThat(unknown.cost()).isNaN();
    assertThat(unknown.model()).isNull();
  }

  @Test
  void aLongErrorIsCutToTheLimit() throws Exception {
    Ledger ledger = sqlite();
    MeteredRequest base = LedgerFixtures.sample(6, 1L);
    String longError = "x".repeat(RequestsTable.MAX_ERROR_CHARS + 500);
    MeteredRequest r = LedgerFixtures.usage("a", 1L, base.errorClass(), 1, 1, 1, Double.NaN, Double.NaN);
    r = MeteredRequestBuilder.chat("a", null, "up").id(r.requestId()).startedAt(1L).endpoint("/x").streamed(false)
        .failed(base.errorClass(), 500).error(longError).finishReason(null).times(0, -1, Double.NaN, -1).build();
    try (LedgerWriter w = ledger.writer()) {
      w.accept(r);
    }
    assertThat(LedgerFixtures.readAll(ledger).get(0).error()).hasSize(RequestsTable.MAX_ERROR_CHARS);
  }

  @Test
  void aRecordIsCommittedWithinTheFlushIntervalWithoutClosing() throws Exception {
    Ledger ledger = sqlite();
    LedgerWriter w = ledger.writer(LedgerWriter.Settings.DEFAULTS.withFlushIntervalNanos(50 * MS), Ticker.system());
    try {
      long start = System.nanoTime();
      w.accept(LedgerFixtures.sample(1, 1L));
      while (LedgerFixtures.readAll(ledger).isEmpty() && System.nanoTime() - start < 5_000 * MS) {
        Thread.sleep(5);
      }
      long tookNanos = System.nanoTime() - start;
      assertThat(LedgerFixtures.readAll(ledger)).hasSize(1);
      assertThat(tookNanos).isLessThan(w.durabilityBoundNanos());
      assertThat(w.written()).isEqualTo(1);
    } finally {
      w.close();
    }
    assertThat(w.durabilityBoundNanos()).isEqualTo(50 * MS + LedgerWriter.COMMIT_ALLOWANCE_NANOS);
  }

  @Test
  void closeDrainsEverythingQueued() throws Exception {
    Ledger ledger = sqlite();
    LedgerWriter w = ledger.writer(new LedgerWriter.Settings(100_000, 200 * MS, 1_000, 10_000 * MS), Ticker.system());
    for (int i = 0; i < 20_000; i++) {
      w.accept(LedgerFixtures.sample(i, i));
    }
    w.close();
    assertThat(w.written()).isEqualTo(20_000);
    assertThat(w.dropped()).isZero();
    assertThat(w.pending()).isZero();
    assertThat(LedgerFixtures.readAll(ledger)).hasSize(20_000);
    w.accept(LedgerFixtures.sample(1, 1));
    assertThat(w.dropped()).as("accepted after close").isEqualTo(1);
  }

  @Test
  void aFullQueueDropsAndCountsWithoutBlocking() throws Exception {
    CountDownLatch connecting = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Ledger real = sqlite();
    Ledger stalled = new Ledger(real.target(), dataSource(() -> {
      connecting.countDown();
      await(release);
      return real.connect();
    }));
    LedgerWriter w = stalled.writer(new LedgerWriter.Settings(4, 10 * MS, 100, 5_000 * MS), Ticker.system());
    w.accept(LedgerFixtures.sample(0, 0));
    assertThat(connecting.await(10, TimeUnit.SECONDS)).as("the writer took the first batch").isTrue();
    long start = System.nanoTime();
    for (int i = 1; i <= 100; i++) {
      w.accept(LedgerFixtures.sample(i, i));
    }
    assertThat(System.nanoTime() - start).as("accept never waits for the stalled database").isLessThan(1_000 * MS);
    assertThat(w.pending()).isEqualTo(4);
    assertThat(w.dropped()).isEqualTo(96);
    release.countDown();
    w.close();
    assertThat(w.written()).isEqualTo(5);
    assertThat(w.dropped()).isEqualTo(96);
    assertThat(LedgerFixtures.readAll(real)).extracting(MeteredRequest::requestId)
        .containsExactly("req-0", "req-1", "req-2", "req-3", "req-4");
  }

  @Test
  void aFailedCommitIsRetriedOnANewConnection() throws Exception {
    Ledger real = sqlite();
    AtomicInteger attempts = new AtomicInteger();
    Ledger flaky = new Ledger(real.target(), dataSource(() -> {
      if (attempts.incrementAndGet() <= 2) {
        throw new SQLException("connection refused (password=hunter2)", "08001");
      }
      return real.connect();
    }));
    LedgerWriter w = flaky.writer(new LedgerWriter.Settings(100, 5 * MS, 100, 5_000 * MS), Ticker.system());
    for (int i = 0; i < 10; i++) {
      w.accept(LedgerFixtures.sample(i, i));
    }
    w.close();
    assertThat(w.failedCommits()).isEqualTo(2);
    assertThat(w.lastError()).contains("connection refused").doesNotContain("hunter2");
    assertThat(w.written()).isEqualTo(10);
    assertThat(LedgerFixtures.readAll(real)).hasSize(10);
  }

  @Test
  void aRowTheDatabaseRefusesCostsThatRowOnly() throws Exception {
    Ledger ledger = sqlite();
    try (Connection c = ledger.connect();
        java.sql.Statement s = c.createStatement()) {
      s.execute("CREATE TRIGGER refuse BEFORE INSERT ON requests WHEN NEW.request_id = 'req-3'"
          + " BEGIN SELECT RAISE(ABORT, 'refused for the test'); END");
    }
    LedgerWriter w = ledger.writer(new LedgerWriter.Settings(100, 5 * MS, 100, 5_000 * MS), Ticker.system());
    for (int i = 0; i < 10; i++) {
      w.accept(LedgerFixtures.sample(i, i));
    }
    Thread.sleep(100);
    for (int i = 10; i < 20; i++) {
      w.accept(LedgerFixtures.sample(i, i));
    }
    w.close();
    assertThat(w.written()).isEqualTo(19);
    assertThat(w.dropped()).isEqualTo(1);
    assertThat(w.lastError()).contains("refused for the test");
    assertThat(LedgerFixtures.readAll(ledger)).hasSize(19).extracting(MeteredRequest::requestId).doesNotContain("req-3");
  }

  @Test
  void dataErrorsAreToldFromConnectionErrors() {
    assertThat(LedgerWriter.isDataError(new SQLException("invalid byte sequence", "22021"))).isTrue();
    assertThat(LedgerWriter.isDataError(new SQLException("duplicate key", "23505"))).isTrue();
    assertThat(LedgerWriter.isDataError(new SQLException("connection refused", "08001"))).isFalse();
    assertThat(LedgerWriter.isDataError(new SQLException("no state"))).isFalse();
  }

  @Test
  void closeGivesUpOnAnUnreachableLedgerAndSaysHowManyWereLost() {
    Ledger real = sqlite();
    Ledger down = new Ledger(real.target(), dataSource(() -> {
      throw new SQLException("the database is down", "08006");
    }));
    LedgerWriter w = down.writer(new LedgerWriter.Settings(100, 5 * MS, 100, 50 * MS), Ticker.system());
    for (int i = 0; i < 10; i++) {
      w.accept(LedgerFixtures.sample(i, i));
    }
    assertThatThrownBy(w::close)
        .isInstanceOf(LedgerException.class)
        .hasMessageContaining("10 records were not written")
        .hasMessageContaining("the database is down");
    assertThat(w.written()).isZero();
    assertThat(w.dropped()).isEqualTo(10);
  }

  @Test
  void closeStopsAWriterStuckConnecting() {
    Ledger real = sqlite();
    Ledger hanging = new Ledger(real.target(), dataSource(() -> {
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        throw new SQLException("connect interrupted", "08006");
      }
      return real.connect();
    }));
    LedgerWriter w = hanging.writer(new LedgerWriter.Settings(100, 10 * MS, 100, 0), Ticker.system());
    for (int i = 0; i < 3; i++) {
      w.accept(LedgerFixtures.sample(i, i));
    }
    long start = System.nanoTime();
    assertThatThrownBy(w::close).isInstanceOf(LedgerException.class).hasMessageStartingWith("3 records were not written");
    assertThat(System.nanoTime() - start).as("close waited its bound, then stopped the writer").isLessThan(5_000 * MS);
    assertThat(w.dropped()).isEqualTo(3);
  }

  @Test
  void settingsRefuseNonsense() {
    assertThatThrownBy(() -> new LedgerWriter.Settings(0, MS, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LedgerWriter.Settings(1, 0, 1, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  interface Connect {
    Connection get() throws SQLException;
  }

  /** A data source whose connections come from {@code connect}. */
  static DataSource dataSource(Connect connect) {
    return (DataSource)
        Proxy.newProxyInstance(
            LedgerWriterTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")) {
                return connect.get();
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
