package dev.tokenmeter.ledger;

import dev.tokenmeter.core.time.Ticker;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * An open ledger (from {@link Ledgers}): makes writers for the proxy and answers usage queries.
 * Holds no connection itself; each writer and each query opens its own. Thread-safe.
 */
public final class Ledger {
  private final LedgerTarget target;
  private final DataSource dataSource;

  Ledger(LedgerTarget target, DataSource dataSource) {
    this.target = target;
    this.dataSource = dataSource;
  }

  /** Where this ledger lives. */
  public LedgerTarget target() {
    return target;
  }

  /** A writer with the default settings ({@link LedgerWriter.Settings#DEFAULTS}), started; rows without a proxy id. */
  public LedgerWriter writer() {
    return writer(LedgerWriter.Settings.DEFAULTS, Ticker.system());
  }

  /** A writer with the default settings that marks every row with {@code proxyId} (its {@code proxy_id}), started. */
  public LedgerWriter writer(String proxyId) {
    return new LedgerWriter(this, java.util.Objects.requireNonNull(proxyId, "proxyId"), LedgerWriter.Settings.DEFAULTS,
        Ticker.system());
  }

  /** A writer with {@code settings}, reading time from {@code ticker}, started; rows without a proxy id. */
  public LedgerWriter writer(LedgerWriter.Settings settings, Ticker ticker) {
    return new LedgerWriter(this, null, settings, ticker);
  }

  /**
   * Usage in the window and grouping of {@code query}.
   *
   * @throws LedgerException when the ledger cannot be read
   */
  public UsageReport usage(UsageQuery query) {
    try (Connection c = connect()) {
      return UsageReader.read(c, query);
    } catch (SQLException e) {
      throw new LedgerException("cannot read the ledger " + target.display() + ": " + Ledgers.oneLine(e), e);
    }
  }

  /**
   * What {@code tenant} spent on requests that started at or after {@code since}: one SQL
   * aggregate over the window, for budgets that must survive a restart.
   *
   * @throws LedgerException when the ledger cannot be read
   */
  public TenantSpend spend(String tenant, java.time.Instant since) {
    return spend(tenant, since, null, since);
  }

  /**
   * What {@code tenant} spent on requests that started at or after {@code since}, except those
   * that proxy {@code ownProxyId} wrote for requests it received at or after {@code ownSince}: what
   * the rest of a fleet spent, as one proxy that started at {@code ownSince} reads it for its budgets
   * (rows of an earlier run under the same id count, rows without an id count). One SQL aggregate
   * over the tenant's window (index {@code requests_tenant_started_at}).
   *
   * @param ownProxyId the reading proxy's id, or null to count every row
   * @throws LedgerException when the ledger cannot be read
   */
  public TenantSpend spend(String tenant, java.time.Instant since, String ownProxyId, java.time.Instant ownSince) {
    String sql = "SELECT SUM(COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0)), SUM(COALESCE(cost, 0))"
        + " FROM requests WHERE tenant = ? AND started_at_epoch_ms >= ?"
        + (ownProxyId == null ? "" : " AND (proxy_id IS NULL OR proxy_id <> ? OR started_at_epoch_ms < ?)");
    try (Connection c = connect(); java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, tenant);
      ps.setLong(2, since.toEpochMilli());
      if (ownProxyId != null) {
        ps.setString(3, ownProxyId);
        ps.setLong(4, ownSince.toEpochMilli());
      }
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new TenantSpend(rs.getLong(1), rs.getDouble(2));
      }
    } catch (SQLException e) {
      throw new LedgerException("cannot read the ledger " + target.display() + ": " + Ledgers.oneLine(e), e);
    }
  }

  /**
   * The requests of {@code window}, in start order, as the production report reads them.
   *
   * @throws LedgerException when the ledger cannot be read
   */
  public java.util.List<dev.tokenmeter.core.production.ProductionRequest> production(ProductionWindow window) {
    try (Connection c = connect()) {
      return ProductionReader.read(c, window);
    } catch (SQLException e) {
      throw new LedgerException("cannot read the ledger " + target.display() + ": " + Ledgers.oneLine(e), e);
    }
  }

  /**
   * Every tenant ({@code "tenant"}) or model ({@code "model"}) the ledger has a request of, sorted:
   * for telling a misspelt name from a quiet window.
   *
   * @throws LedgerException when the ledger cannot be read
   */
  public java.util.List<String> seen(String column) {
    try (Connection c = connect()) {
      return ProductionReader.distinct(c, column);
    } catch (SQLException e) {
      throw new LedgerException("cannot read the ledger " + target.display() + ": " + Ledgers.oneLine(e), e);
    }
  }

  /**
   * Hands every request that started at or after {@code since} to {@code each}, oldest first, in
   * one pass (streamed, not loaded whole): what drift and workload export read.
   *
   * @throws LedgerException when the ledger cannot be read
   */
  public void workload(java.time.Instant since, java.util.function.Consumer<WorkloadRow> each) {
    String sql = "SELECT started_at_epoch_ms, model, error_class, input_tokens, output_tokens, cached_tokens,"
        + " in_flight_at_start, conversation, proxy_queue_ms, e2e_ms FROM requests WHERE started_at_epoch_ms >= ?"
        + " ORDER BY started_at_epoch_ms";
    try (Connection c = connect()) {
      c.setAutoCommit(false); // PostgreSQL streams rows only inside a transaction
      try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setFetchSize(10_000);
        ps.setLong(1, since.toEpochMilli());
        try (java.sql.ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            each.accept(new WorkloadRow(rs.getLong(1), rs.getString(2), rs.getString(3) == null,
                RequestsTable.count(rs, "input_tokens"), RequestsTable.count(rs, "output_tokens"),
                RequestsTable.count(rs, "cached_tokens"), rs.getInt(7), rs.getString(8), ended(rs)));
          }
        }
      } finally {
        c.rollback();
      }
    } catch (SQLException e) {
      throw new LedgerException("cannot read the ledger " + target.display() + ": " + Ledgers.oneLine(e), e);
    }
  }

  /**
   * Hands every request that started at or after {@code since} and was sent upstream (not refused by
   * the proxy) to {@code each}, oldest first, in one streamed pass: what trace export reads.
   *
   * @throws LedgerException when the ledger cannot be read
   */
  public void trace(java.time.Instant since, java.util.function.Consumer<TraceRow> each) {
    String sql = "SELECT started_at_epoch_ms, error_class, input_tokens, output_tokens, conversation, prompt_blocks,"
        + " prompt_chars FROM requests WHERE started_at_epoch_ms >= ? AND upstream <> ?"
        + " ORDER BY started_at_epoch_ms, request_id";
    try (Connection c = connect()) {
      c.setAutoCommit(false); // PostgreSQL streams rows only inside a transaction
      try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setFetchSize(10_000);
        ps.setLong(1, since.toEpochMilli());
        ps.setString(2, MeteredRequest.NO_UPSTREAM);
        try (java.sql.ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            each.accept(new TraceRow(rs.getLong(1), rs.getString(2) == null, RequestsTable.count(rs, "input_tokens"),
                RequestsTable.count(rs, "output_tokens"), rs.getString(5), RequestsTable.blocks(rs)));
          }
        }
      } finally {
        c.rollback();
      }
    } catch (SQLException | IllegalArgumentException e) {
      throw new LedgerException("cannot read the ledger " + target.display() + ": " + e.getMessage(), e);
    }
  }

  /** When the row's answer ended: start + the proxy's queue + E2E, in milliseconds; -1 when E2E is unknown. */
  private static long ended(java.sql.ResultSet rs) throws SQLException {
    double e2e = rs.getDouble("e2e_ms");
    if (rs.wasNull()) {
      return -1;
    }
    double queue = rs.getDouble("proxy_queue_ms");
    return rs.getLong("started_at_epoch_ms") + Math.round((rs.wasNull() ? 0 : queue) + e2e);
  }

  /** A new connection to the ledger; the caller closes it. */
  Connection connect() throws SQLException {
    return dataSource.getConnection();
  }
}
