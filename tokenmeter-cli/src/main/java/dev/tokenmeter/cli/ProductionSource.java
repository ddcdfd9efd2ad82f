package dev.tokenmeter.cli;

import dev.tokenmeter.core.production.ProductionRequest;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerException;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.ledger.ProductionWindow;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A window of the proxy's ledger as {@code proxy report} and {@code compare --production} read it:
 * the window parsed, the ledger opened read-only, the names checked, the requests read. Every
 * mistake is a {@link UsageException} naming the fix.
 *
 * @param ledgerDisplay the ledger's name for messages and reports (no password)
 * @param window the window read
 * @param requests its requests, in start order; never empty
 */
record ProductionSource(String ledgerDisplay, ProductionWindow window, List<ProductionRequest> requests) {

  /**
   * Reads the window {@code since} to {@code until} (null: now) of {@code ledger}.
   *
   * @throws UsageException for a window that cannot be parsed or is backwards, a ledger that is
   *     missing or not a ledger, a tenant or model it never saw, or a window without requests
   */
  static ProductionSource read(String ledger, String since, String until, String tenant, String model, Instant now,
      Map<String, String> env) {
    Instant from = ProxyUsageCommand.parseSince(since, now);
    Instant to = until == null ? now : ProxyUsageCommand.parseSince(until, now);
    if (!to.isAfter(from)) {
      throw new UsageException("--until " + to + " is not after --since " + from + "; give a window that moves forward");
    }
    ProductionWindow window = new ProductionWindow(from, to, blankToNull(tenant), blankToNull(model));
    try {
      Ledger l = Ledgers.openExisting(ledger, env);
      String name = l.target().display();
      known(l, "tenant", window.tenantOrNull(), name);
      known(l, "model", window.modelOrNull(), name);
      List<ProductionRequest> requests = l.production(window);
      if (requests.isEmpty()) {
        throw new UsageException("no requests in the ledger " + name + " from " + from + " to " + to
            + (window.tenantOrNull() == null ? "" : " for tenant " + window.tenantOrNull())
            + (window.modelOrNull() == null ? "" : " for model " + window.modelOrNull())
            + "; widen the window (--since 7d) or check that the proxy writes this ledger");
      }
      return new ProductionSource(name, window, requests);
    } catch (LedgerException e) {
      throw new UsageException(e.getMessage());
    }
  }

  private static void known(Ledger l, String column, String value, String ledgerName) {
    if (value == null) {
      return;
    }
    List<String> seen = l.seen(column);
    if (!seen.contains(value)) {
      String some = seen.size() <= 10 ? String.join(", ", seen) : String.join(", ", seen.subList(0, 10)) + ", ...";
      throw new UsageException("--" + column + " '" + value + "': the ledger " + ledgerName + " has no request of it;"
          + (seen.isEmpty() ? " it holds no " + column + " at all" : " it knows " + some)
          + " (names are case-sensitive), or leave --" + column + " out");
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }
}
