package dev.tokenmeter.ledger;

import dev.tokenmeter.core.production.ProductionRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a {@link ProductionWindow} of the {@code requests} table as {@link ProductionRequest}s, in
 * one pass. Every row has {@code in_flight_at_start} (NOT NULL since migration V1), so every
 * request lands in a concurrency bin.
 */
final class ProductionReader {
  /** Rows fetched per round trip from PostgreSQL (it streams only inside a transaction). */
  private static final int FETCH_ROWS = 10_000;

  private static final String SELECT =
      "SELECT started_at_epoch_ms, in_flight_at_start, tenant, model, error_class, ttft_ms, tpot_ms, e2e_ms,"
          + " decode_tps, input_tokens, output_tokens, cost, currency"
          + " FROM requests WHERE started_at_epoch_ms >= ? AND started_at_epoch_ms < ?";

  private ProductionReader() {}

  static List<ProductionRequest> read(Connection c, ProductionWindow w) throws SQLException {
    String sql = SELECT + (w.tenantOrNull() == null ? "" : " AND tenant = ?")
        + (w.modelOrNull() == null ? "" : " AND model = ?") + " ORDER BY started_at_epoch_ms";
    List<ProductionRequest> out = new ArrayList<>();
    c.setAutoCommit(false);
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setFetchSize(FETCH_ROWS);
      int i = 1;
      ps.setLong(i++, w.since().toEpochMilli());
      ps.setLong(i++, w.until().toEpochMilli());
      if (w.tenantOrNull() != null) {
        ps.setString(i++, w.tenantOrNull());
      }
      if (w.modelOrNull() != null) {
        ps.setString(i, w.modelOrNull());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(request(rs));
        }
      }
    } finally {
      c.rollback();
    }
    return out;
  }

  /** The distinct values of {@code column} ({@code tenant} or {@code model}) in the whole ledger, sorted. */
  static List<String> distinct(Connection c, String column) throws SQLException {
    if (!column.equals("tenant") && !column.equals("model")) {
      throw new IllegalArgumentException("not a column to list: " + column);
    }
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(
            "SELECT DISTINCT " + column + " FROM requests WHERE " + column + " IS NOT NULL ORDER BY " + column);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static ProductionRequest request(ResultSet rs) throws SQLException {
    return new ProductionRequest(
        rs.getLong("started_at_epoch_ms"),
        rs.getInt("in_flight_at_start") + 1,
        rs.getString("tenant"),
        rs.getString("model"),
        rs.getString("error_class"),
        RequestsTable.real(rs, "ttft_ms"),
        RequestsTable.real(rs, "tpot_ms"),
        RequestsTable.real(rs, "e2e_ms"),
        RequestsTable.real(rs, "decode_tps"),
        RequestsTable.count(rs, "input_tokens"),
        RequestsTable.count(rs, "output_tokens"),
        RequestsTable.real(rs, "cost"),
        rs.getString("currency"));
  }
}
