package dev.tokenmeter.proxy;

import dev.tokenmeter.governance.Alert;
import dev.tokenmeter.governance.Budget;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.governance.BudgetPlan;
import dev.tokenmeter.governance.BudgetSync;
import dev.tokenmeter.governance.Notice;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerException;
import dev.tokenmeter.ledger.TenantSpend;
import dev.tokenmeter.telemetry.PrometheusProxyMetrics;
import java.io.PrintStream;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.Consumer;

/**
 * The proxy's budgets wired up: spend so far read from the ledger, then the rest of the fleet's
 * spend read again every {@link BudgetPlan#syncIntervalNanos()} ({@link BudgetSync}), use to the
 * metrics gauge, notices to the alerts. No book when no budget is configured.
 */
final class LiveBudgets {
  private LiveBudgets() {}

  /**
   * The budgets of {@code plan}, or null when it has none.
   *
   * @throws ProxyRun.CannotStart when the spend so far cannot be read from the ledger
   */
  static BudgetBook of(BudgetPlan plan, Prices prices, Ledger ledgerOrNull, String proxyId, Instant started,
      PrometheusProxyMetrics metrics, InstantSource clock, Consumer<Alert> alerts, PrintStream log) {
    if (plan.budgets().isEmpty()) {
      return null;
    }
    if (ledgerOrNull == null) {
      log.println(Alerts.PREFIX + "no ledger (--ledger none): budgets count from zero and forget their spend on restart");
    }
    BudgetBook.Listener listener = new BudgetBook.Listener() {
      @Override
      public void used(Budget b, double ratio) {
        metrics.budgetUsed(b.tenant(), b.unit(), b.period().word(), ratio);
      }

      @Override
      public void notice(Notice n) {
        alerts.accept(n);
      }
    };
    try {
      return new BudgetBook(plan.budgets(), clock,
          (model, in, out) -> prices.cost(model, (int) Math.min(in, Integer.MAX_VALUE), (int) Math.min(out, Integer.MAX_VALUE)),
          others(ledgerOrNull, proxyId, started)::othersSpent, listener);
    } catch (LedgerException e) {
      throw new ProxyRun.CannotStart("cannot read the budgets' spend so far: " + e.getMessage());
    }
  }

  /**
   * The reader of the rest of the fleet's spend for {@code book}, started; null when there is no
   * book, no ledger, or the plan turns it off.
   *
   * @param proxyId this proxy's {@code proxy_id}: its rows since {@code started} are its own spend
   */
  static BudgetSync sync(BudgetBook bookOrNull, BudgetPlan plan, Ledger ledgerOrNull, String proxyId, Instant started,
      PrometheusProxyMetrics metrics, PrintStream log) {
    if (bookOrNull == null || ledgerOrNull == null || plan.syncIntervalNanos() == 0) {
      return null;
    }
    BudgetSync sync = new BudgetSync(bookOrNull, others(ledgerOrNull, proxyId, started),
        line -> log.println(Alerts.PREFIX + line), Ticker.system()).start(plan.syncIntervalNanos());
    metrics.watchBudgetSync(sync::failures);
    return sync;
  }

  /** The ledger's rows of a tenant since a period's start, less this proxy's since it started. */
  private static BudgetSync.Source others(Ledger ledgerOrNull, String proxyId, Instant started) {
    return (tenant, since) -> ledgerOrNull == null ? TenantSpend.NONE : ledgerOrNull.spend(tenant, since, proxyId, started);
  }
}
