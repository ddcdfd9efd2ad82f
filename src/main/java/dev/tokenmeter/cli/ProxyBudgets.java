package dev.tokenmeter.cli;

import dev.tokenmeter.governance.Budget;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.governance.BudgetPlan;
import dev.tokenmeter.governance.Notice;
import dev.tokenmeter.governance.WebhookNotifier;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerException;
import dev.tokenmeter.ledger.TenantSpend;
import dev.tokenmeter.proxy.Prices;
import dev.tokenmeter.run.RunFailedException;
import dev.tokenmeter.telemetry.PrometheusProxyMetrics;
import java.io.PrintStream;
import java.time.InstantSource;

/**
 * The proxy's budgets wired up: spend so far read from the ledger, use to the metrics gauge,
 * notices to the log and the webhook. Null parts when no budget is configured.
 *
 * @param bookOrNull the budgets, or null for none
 * @param webhookOrNull the webhook poster, or null
 */
record ProxyBudgets(BudgetBook bookOrNull, WebhookNotifier webhookOrNull) implements AutoCloseable {

  static ProxyBudgets of(BudgetPlan plan, Prices prices, Ledger ledgerOrNull, PrometheusProxyMetrics metrics,
      InstantSource clock, PrintStream log) {
    if (plan.budgets().isEmpty()) {
      return new ProxyBudgets(null, null);
    }
    if (ledgerOrNull == null) {
      log.println("tokenmeter proxy: no ledger (--ledger none): budgets count from zero and forget their spend on restart");
    }
    WebhookNotifier webhook = plan.webhookOrNull() == null ? null
        : WebhookNotifier.of(plan.webhookOrNull(), line -> log.println("tokenmeter proxy: " + line));
    BudgetBook.Listener listener = new BudgetBook.Listener() {
      @Override
      public void used(Budget b, double ratio) {
        metrics.budgetUsed(b.tenant(), b.unit(), b.period().word(), ratio);
      }

      @Override
      public void notice(Notice n) {
        log.println("tokenmeter proxy: " + n.line());
        if (webhook != null) {
          webhook.accept(n);
        }
      }
    };
    try {
      BudgetBook book = new BudgetBook(plan.budgets(), clock,
          (model, in, out) -> prices.cost(model, (int) Math.min(in, Integer.MAX_VALUE), (int) Math.min(out, Integer.MAX_VALUE)),
          (tenant, since) -> ledgerOrNull == null ? TenantSpend.NONE : ledgerOrNull.spend(tenant, since), listener);
      return new ProxyBudgets(book, webhook);
    } catch (LedgerException e) {
      if (webhook != null) {
        webhook.close(0);
      }
      throw new RunFailedException("cannot read the budgets' spend so far: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    if (webhookOrNull != null) {
      webhookOrNull.close();
    }
  }
}
