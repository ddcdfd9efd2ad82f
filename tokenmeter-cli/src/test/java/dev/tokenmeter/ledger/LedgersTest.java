package dev.tokenmeter.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgersTest {
  @TempDir Path dir;

  @Test
  void openCreatesAndMigratesOnceAndAgainIsANoOp() throws Exception {
    Path file = dir.resolve("l.db");
    Ledgers.open(file.toString(), Map.of());
    Ledger again = Ledgers.open(file.toString(), Map.of());
    assertThat(again.target()).isEqualTo(new LedgerTarget.SqliteFile(file));
    try (Connection c = again.connect();
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT count(*), max(version) FROM flyway_schema_history WHERE success = 1")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(4);
      assertThat(rs.getString(2)).isEqualTo("4");
    }
    try (Connection c = again.connect();
        Statement s = c.createStatement();
        var rs = s.executeQuery("PRAGMA journal_mode")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("wal");
    }
    assertThat(Ledgers.openExisting(file.toString(), Map.of()).target()).isEqualTo(again.target());
  }

  @Test
  void aMissingLedgerIsNamed() {
    Path file = dir.resolve("nope.db");
    assertThatThrownBy(() -> Ledgers.openExisting(file.toString(), Map.of()))
        .isInstanceOf(LedgerException.class)
        .hasMessageStartingWith("ledger " + file + " does not exist");
    assertThat(file).doesNotExist();
  }

  @Test
  void aFileThatIsNotADatabaseIsNotALedger() throws Exception {
    Path file = Files.writeString(dir.resolve("notes.txt"), "hello, this is not SQLite at all, and it is long enough to have a header".repeat(20));
    assertThatThrownBy(() -> Ledgers.openExisting(file.toString(), Map.of()))
        .isInstanceOf(LedgerException.class)
        .hasMessageStartingWith(file + " is not a tokenmeter ledger")
        .hasMessageNotContaining("\n");
  }

  @Test
  void anSqliteDatabaseWithoutTheSchemaIsNotALedger() throws Exception {
    Path file = dir.resolve("other.db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE things (x INTEGER)");
    }
    assertThatThrownBy(() -> Ledgers.openExisting(file.toString(), Map.of()))
        .isInstanceOf(LedgerException.class)
        .hasMessage(file + " is not a tokenmeter ledger: give the ledger the proxy writes (its --ledger)");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement s = c.createStatement();
        var rs = s.executeQuery("PRAGMA journal_mode")) {
      rs.next();
      assertThat(rs.getString(1)).as("reading changed nothing").isEqualTo("delete");
    }
  }

  @Test
  void usageReadsWhileTheWriterWrites() throws Exception {
    Path file = dir.resolve("busy.db");
    Ledger ledger = Ledgers.open(file.toString(), Map.of());
    try (LedgerWriter w = ledger.writer()) {
      for (int i = 0; i < 2_000; i++) {
        w.accept(LedgerFixtures.sample(i, 1_000 + i));
      }
      Ledger reader = Ledgers.openExisting(file.toString(), Map.of());
      UsageQuery all = new UsageQuery(java.time.Instant.EPOCH, null, UsageQuery.GroupBy.TENANT);
      long seen = 0;
      for (int k = 0; k < 50 && seen < 2_000; k++) {
        seen = reader.usage(all).total().requests();
        Thread.sleep(20);
      }
      assertThat(seen).isEqualTo(2_000);
    }
  }

  @Test
  void aMissingFolderIsNamed() {
    Path file = dir.resolve("no/such/folder/l.db");
    assertThatThrownBy(() -> Ledgers.open(file.toString(), Map.of()))
        .isInstanceOf(LedgerException.class)
        .hasMessageContaining("folder " + file.getParent() + " does not exist");
  }

  @Test
  void targetsParse() {
    assertThat(LedgerTarget.parse(" ledger.db ", Map.of())).isEqualTo(new LedgerTarget.SqliteFile(Path.of("ledger.db")));
    LedgerTarget pg = LedgerTarget.parse("jdbc:postgresql://db:5432/tm", Map.of("PGUSER", "u", "PGPASSWORD", "s3cret"));
    assertThat(pg).isEqualTo(new LedgerTarget.Postgres("jdbc:postgresql://db:5432/tm", "u", "s3cret"));
    assertThat(pg.toString()).doesNotContain("s3cret");
    assertThatThrownBy(() -> LedgerTarget.parse("jdbc:mysql://db/tm?password=pw", Map.of()))
        .hasMessage("ledger jdbc:mysql://db/tm?password=***: only jdbc:postgresql: URLs are supported; for SQLite give a file path");
    assertThatThrownBy(() -> LedgerTarget.parse("  ", Map.of())).hasMessageStartingWith("no ledger given");
  }

  @Test
  void passwordsNeverReachAMessage() {
    assertThat(LedgerTarget.Postgres.redact("jdbc:postgresql://h/db?user=u&password=hunter2&ssl=true"))
        .isEqualTo("jdbc:postgresql://h/db?user=u&password=***&ssl=true");
    assertThat(LedgerTarget.Postgres.redact("postgresql://u:hunter2@h/db")).isEqualTo("postgresql://***@h/db");
    // nothing listens on port 1: the connection fails, and the message names the URL without the password
    String url = "jdbc:postgresql://127.0.0.1:1/tm?user=u&password=hunter2&connectTimeout=2";
    assertThatThrownBy(() -> Ledgers.openExisting(url, Map.of()))
        .isInstanceOf(LedgerException.class)
        .hasMessageStartingWith("cannot reach the ledger at jdbc:postgresql://127.0.0.1:1/tm?user=u&password=***")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> Ledgers.open(url, Map.of("PGPASSWORD", "hunter3")))
        .isInstanceOf(LedgerException.class)
        .hasMessageNotContaining("hunter2")
        .hasMessageNotContaining("hunter3");
  }

  /**
   * A V1 ledger gains {@code proxy_id} (its old rows NULL); each writer marks its rows; the spend of
   * the rest of a fleet leaves out only the reading proxy's rows of its current run.
   */
  @Test
  void aV1LedgerGainsProxyIdsAndTheOthersSpendLeavesOutOnlyThisRunsOwnRows() throws Exception {
    Path file = dir.resolve("v1.db");
    LedgerTarget t = LedgerTarget.parse(file.toString(), Map.of());
    org.flywaydb.core.Flyway.configure().dataSource(Ledgers.dataSource(t, false)).locations(Ledgers.MIGRATIONS)
        .target("1").load().migrate();
    long t0 = java.time.Instant.parse("2026-11-25T08:00:00Z").toEpochMilli();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement s = c.createStatement()) {
      s.executeUpdate("INSERT INTO requests (request_id, started_at_epoch_ms, tenant, upstream, endpoint, streamed,"
          + " input_tokens, output_tokens, chunks, in_flight_at_start) VALUES ('old', " + t0 + ", 'acme', 'up',"
          + " '/v1/chat/completions', 1, 1, 2, 2, 0)"); // 3 tokens, written before V2
    }
    Ledger ledger = Ledgers.open(file.toString(), Map.of());
    java.time.Instant restart = java.time.Instant.ofEpochMilli(t0 + 60_000);
    try (LedgerWriter a = ledger.writer("edge-a");
        LedgerWriter b = ledger.writer("edge-b")) {
      a.accept(LedgerFixtures.usage("acme", t0 + 1_000, null, 10, 20, 1_000_000, Double.NaN, Double.NaN)); // a's last run
      a.accept(LedgerFixtures.usage("acme", t0 + 61_000, null, 100, 200, 1_000_000, Double.NaN, Double.NaN)); // this run
      b.accept(LedgerFixtures.usage("acme", t0 + 62_000, null, 1_000, 2_000, 1_000_000, Double.NaN, Double.NaN));
      b.accept(LedgerFixtures.usage("other", t0 + 62_000, null, 5_000, 5_000, 1_000_000, Double.NaN, Double.NaN));
    }
    java.time.Instant day = java.time.Instant.parse("2026-11-25T00:00:00Z");
    assertThat(ledger.spend("acme", day).tokens()).isEqualTo(3 + 30 + 300 + 3_000);
    assertThat(ledger.spend("acme", day, "edge-a", restart).tokens()).as("all but edge-a's rows since its restart")
        .isEqualTo(3 + 30 + 3_000);
    assertThat(ledger.spend("acme", day, "edge-b", restart).tokens()).isEqualTo(3 + 30 + 300);
    assertThat(ledger.spend("acme", day, "edge-c", restart).tokens()).isEqualTo(3 + 30 + 300 + 3_000);
    UsageReport byProxy = ledger.usage(new UsageQuery(day, "acme", UsageQuery.GroupBy.PROXY));
    assertThat(byProxy.rows()).extracting(UsageRow::key).containsExactly(UsageRow.NONE, "edge-a", "edge-b");
    assertThat(byProxy.rows()).extracting(UsageRow::requests).containsExactly(1L, 2L, 1L);
    try (Connection c = ledger.connect();
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT count(*) FROM requests WHERE proxy_id IS NULL")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(1);
    }
  }
}
