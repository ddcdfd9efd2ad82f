package dev.tokenmeter.ledger;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.postgresql.ds.PGSimpleDataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * Opens ledgers: {@link #open} for the proxy (creates and migrates), {@link #openExisting} for
 * readers such as {@code proxy usage} (changes nothing, and says clearly when the target is missing
 * or is not a ledger).
 *
 * <p>A target is an SQLite file path or a {@code jdbc:postgresql://host:port/db} URL; see {@link
 * LedgerTarget}. Passwords are never put into messages.
 */
/* design notes
 * SQLite runs in WAL mode with synchronous=FULL: a commit returns after the WAL is fsynced, so a
 * committed batch survives both kill -9 and a power cut (on a disk that honours fsync). FULL costs
 * one fsync per commit; the writer commits once per batch (at most 5 a second at the default
 * 200 ms under light load), so the price is small. busy_timeout lets a reader's checkpoint and the
 * writer take turns instead of failing with SQLITE_BUSY.
 * Migrations: Flyway, one SQL file per version under dev/tokenmeter/ledger/migration, valid in both
 * dialects; on PostgreSQL, Flyway takes an advisory lock, so proxies of a fleet starting together
 * migrate once.
 */
public final class Ledgers {
  static final String MIGRATIONS = "classpath:dev/tokenmeter/ledger/migration";
  private static final int BUSY_TIMEOUT_MILLIS = 10_000;
  private static final int PG_CONNECT_TIMEOUT_SECONDS = 10;

  private Ledgers() {}

  /** {@link #open(String, Map)} with the process's environment. */
  public static Ledger open(String target) {
    return open(target, System.getenv());
  }

  /**
   * Opens the ledger at {@code target} for writing, creating it (an SQLite file) and bringing its
   * schema to the newest version.
   *
   * @param env the environment, for {@code PGUSER} and {@code PGPASSWORD}
   * @throws LedgerException when it cannot be reached, created or migrated
   */
  public static Ledger open(String target, Map<String, String> env) {
    LedgerTarget t = LedgerTarget.parse(target, env);
    if (t instanceof LedgerTarget.SqliteFile f) {
      Path parent = f.file().toAbsolutePath().getParent();
      if (parent != null && !Files.isDirectory(parent)) {
        throw new LedgerException("ledger " + t.display() + ": folder " + parent + " does not exist; create it first");
      }
    }
    DataSource ds = dataSource(t, /* readOnly= */ false);
    try {
      flyway(ds).migrate();
    } catch (FlywayException e) {
      throw new LedgerException("ledger " + t.display() + ": cannot create or migrate it: " + oneLine(e), e);
    }
    return new Ledger(t, ds);
  }

  /** {@link #openExisting(String, Map)} with the process's environment. */
  public static Ledger openExisting(String target) {
    return openExisting(target, System.getenv());
  }

  /**
   * Opens an existing ledger for reading; writes nothing, migrates nothing.
   *
   * @throws LedgerException when the file does not exist, the database cannot be reached, or it holds
   *     no tokenmeter ledger
   */
  public static Ledger openExisting(String target, Map<String, String> env) {
    LedgerTarget t = LedgerTarget.parse(target, env);
    if (t instanceof LedgerTarget.SqliteFile f && !Files.isRegularFile(f.file())) {
      throw new LedgerException(
          "ledger " + t.display() + " does not exist: give the file the proxy writes (its --ledger), or a jdbc:postgresql:// URL");
    }
    DataSource ds = dataSource(t, /* readOnly= */ true);
    MigrationInfo current;
    try {
      current = flyway(ds).info().current();
    } catch (FlywayException e) {
      throw notALedger(t, e);
    }
    if (current == null) {
      throw notALedger(t, null);
    }
    Ledger ledger = new Ledger(t, ds);
    try (Connection c = ledger.connect();
        var rs = c.getMetaData().getTables(null, null, "requests", null)) {
      if (!rs.next()) {
        throw notALedger(t, null);
      }
    } catch (SQLException e) {
      throw notALedger(t, e);
    }
    return ledger;
  }

  private static LedgerException notALedger(LedgerTarget t, Exception cause) {
    String why = cause == null ? "" : " (" + oneLine(cause) + ")";
    if (t instanceof LedgerTarget.Postgres && cause != null && isConnectFailure(cause)) {
      return new LedgerException("cannot reach the ledger at " + t.display() + ": " + oneLine(cause), cause);
    }
    return new LedgerException(
        t.display() + " is not a tokenmeter ledger" + why + ": give the ledger the proxy writes (its --ledger)", cause);
  }

  private static boolean isConnectFailure(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof SQLException s && s.getSQLState() != null
          && (s.getSQLState().startsWith("08") || s.getSQLState().startsWith("28") || s.getSQLState().equals("3D000"))) {
        return true;
      }
    }
    return false;
  }

  static Flyway flyway(DataSource ds) {
    return Flyway.configure()
        .dataSource(ds)
        .locations(MIGRATIONS)
        .loggers("slf4j")
        .load();
  }

  /** With {@code readOnly}, an SQLite file is opened read-only and its journal mode left alone. */
  static DataSource dataSource(LedgerTarget t, boolean readOnly) {
    return switch (t) {
      case LedgerTarget.SqliteFile f -> sqlite(f.file(), readOnly);
      case LedgerTarget.Postgres p -> postgres(p, readOnly);
    };
  }

  private static DataSource sqlite(Path file, boolean readOnly) {
    SQLiteConfig config = new SQLiteConfig();
    if (readOnly) {
      config.setReadOnly(true);
    } else {
      config.setJournalMode(SQLiteConfig.JournalMode.WAL);
      config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    }
    config.setBusyTimeout(BUSY_TIMEOUT_MILLIS);
    SQLiteDataSource ds = new SQLiteDataSource(config);
    ds.setUrl("jdbc:sqlite:" + file.toAbsolutePath());
    return ds;
  }

  private static DataSource postgres(LedgerTarget.Postgres p, boolean readOnly) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    try {
      ds.setUrl(p.url());
    } catch (IllegalArgumentException e) {
      throw new LedgerException("ledger " + p.display() + " is not a valid PostgreSQL JDBC URL; use jdbc:postgresql://host:port/db");
    }
    if (ds.getUser() == null && p.user() != null) {
      ds.setUser(p.user());
    }
    if (ds.getPassword() == null && p.password() != null) {
      ds.setPassword(p.password());
    }
    ds.setReWriteBatchedInserts(true);
    ds.setConnectTimeout(PG_CONNECT_TIMEOUT_SECONDS);
    ds.setApplicationName("tokenmeter");
    ds.setReadOnly(readOnly);
    return ds;
  }

  /** The first line of {@code e}'s message, with any password removed. */
  static String oneLine(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    int nl = m.indexOf('\n');
    return LedgerTarget.Postgres.redact((nl < 0 ? m : m.substring(0, nl)).strip());
  }
}
