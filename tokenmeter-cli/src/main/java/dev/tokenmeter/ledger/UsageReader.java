package dev.tokenmeter.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Reads a window of the {@code requests} table in one pass and adds it up by group. */
final class UsageReader {
  /** Rows fetched per round trip from PostgreSQL (it streams only inside a transaction). */
  private static final int FETCH_ROWS = 10_000;

  private static final String SELECT =
      "SELECT tenant, model, upstream, started_at_epoch_ms, error_class, input_tokens, output_tokens,"
          + " reasoning_tokens, cached_tokens, ttft_ms, tpot_ms, decode_tps, cost, currency"
          + " FROM requests WHERE started_at_epoch_ms >= ?";

  private UsageReader() {}

  static UsageReport read(Connection c, UsageQuery q) throws SQLException {
    String select = switch (q.by()) {
      case PROXY -> SELECT.replace("SELECT ", "SELECT proxy_id, ");
      case CONVERSATION -> SELECT.replace("SELECT ", "SELECT conversation, ");
      default -> SELECT;
    };
    String sql = q.tenantOrNull() == null ? select : select + " AND tenant = ?";
    Map<String, UsageTally> groups = new TreeMap<>();
    c.setAutoCommit(false);
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setFetchSize(FETCH_ROWS);
      ps.setLong(1, q.since().toEpochMilli());
      if (q.tenantOrNull() != null) {
        ps.setString(2, q.tenantOrNull());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          groups.computeIfAbsent(key(rs, q.by()), k -> new UsageTally()).add(figures(rs));
        }
      }
    } finally {
      c.rollback();
    }
    List<UsageRow> rows = new ArrayList<>(groups.size());
    UsageTally total = new UsageTally();
    groups.forEach(
        (key, tally) -> {
          rows.add(tally.row(key));
          total.addAll(tally);
        });
    return new UsageReport(q, rows, total.row("total"));
  }

  private static String key(ResultSet rs, UsageQuery.GroupBy by) throws SQLException {
    String key =
        switch (by) {
          case TENANT -> rs.getString("tenant");
          case MODEL -> rs.getString("model");
          case UPSTREAM -> rs.getString("upstream");
          case PROXY -> rs.getString("proxy_id"); // NULL in rows from before V2: UsageRow.NONE
          case CONVERSATION -> rs.getString("conversation"); // NULL: no key sent, or a row from before V3
          case DAY ->
              Instant.ofEpochMilli(rs.getLong("started_at_epoch_ms")).atOffset(ZoneOffset.UTC).toLocalDate().toString();
        };
    return key == null || key.isEmpty() ? UsageRow.NONE : key;
  }

  private static UsageTally.Figures figures(ResultSet rs) throws SQLException {
    return new UsageTally.Figures(
        rs.getString("error_class"),
        RequestsTable.count(rs, "input_tokens"),
        RequestsTable.count(rs, "output_tokens"),
        RequestsTable.count(rs, "reasoning_tokens"),
        RequestsTable.count(rs, "cached_tokens"),
        RequestsTable.nanos(rs, "ttft_ms"),
        RequestsTable.real(rs, "tpot_ms") * 1e6,
        RequestsTable.real(rs, "decode_tps"),
        RequestsTable.real(rs, "cost"),
        rs.getString("currency"));
  }
}
