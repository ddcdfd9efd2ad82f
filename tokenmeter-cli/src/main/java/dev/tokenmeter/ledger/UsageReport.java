package dev.tokenmeter.ledger;

import java.util.List;

/**
 * The answer to a {@link UsageQuery}: one row per group, sorted by key, and the total over them
 * (its key {@code "total"}; its distributions are of every request in the window, not an average of
 * the rows').
 */
public record UsageReport(UsageQuery query, List<UsageRow> rows, UsageRow total) {
  public UsageReport {
    rows = List.copyOf(rows);
  }
}
