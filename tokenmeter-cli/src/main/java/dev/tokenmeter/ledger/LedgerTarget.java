package dev.tokenmeter.ledger;

import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where a ledger lives: an SQLite file (the default, one proxy) or a PostgreSQL database (a fleet
 * of proxies sharing one ledger). {@link #display()} names it for messages and logs, without a
 * password.
 */
public sealed interface LedgerTarget {

  /** A one-line name for messages: the file, or the URL with any password removed. */
  String display();

  /** An SQLite database in {@code file}. */
  record SqliteFile(Path file) implements LedgerTarget {
    @Override
    public String display() {
      return file.toString();
    }
  }

  /**
   * A PostgreSQL database at {@code url} ({@code jdbc:postgresql://host:port/db?...}). User and
   * password come from the URL ({@code user=}, {@code password=}) or, when it names none, from the
   * libpq environment variables {@code PGUSER} and {@code PGPASSWORD}.
   *
   * @param url the JDBC URL as given
   * @param user the user from {@code PGUSER}, or null (the URL's wins where it names one)
   * @param password the password from {@code PGPASSWORD}, or null (the URL's wins)
   */
  record Postgres(String url, String user, String password) implements LedgerTarget {
    private static final Pattern SECRET = Pattern.compile("(?i)(password=)[^&]*");
    private static final Pattern USER_INFO = Pattern.compile("//[^/@]*@");

    @Override
    public String display() {
      return redact(url);
    }

    /** {@code text} with every {@code password=...} value and URL user info replaced by stars. */
    static String redact(String text) {
      String s = SECRET.matcher(text).replaceAll("$1***");
      return USER_INFO.matcher(s).replaceAll("//***@");
    }

    @Override
    public String toString() {
      return "Postgres[" + display() + "]";
    }
  }

  /**
   * Reads {@code target}: a {@code jdbc:postgresql:} URL, or else a file path.
   *
   * @param env the environment ({@code PGUSER}, {@code PGPASSWORD})
   * @throws IllegalArgumentException for an empty target or a JDBC URL of another database
   */
  static LedgerTarget parse(String target, Map<String, String> env) {
    String t = target == null ? "" : target.strip();
    if (t.isEmpty()) {
      throw new IllegalArgumentException(
          "no ledger given: name an SQLite file (ledger.db) or a jdbc:postgresql://host:port/db URL");
    }
    if (t.startsWith("jdbc:postgresql:")) {
      return new Postgres(t, env.get("PGUSER"), env.get("PGPASSWORD"));
    }
    if (t.startsWith("jdbc:")) {
      throw new IllegalArgumentException(
          "ledger " + Postgres.redact(t) + ": only jdbc:postgresql: URLs are supported; for SQLite give a file path");
    }
    return new SqliteFile(Path.of(t));
  }
}
