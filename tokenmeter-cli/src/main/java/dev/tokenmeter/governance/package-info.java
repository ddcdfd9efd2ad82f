/**
 * Governing live traffic: per-tenant budgets of tokens or money per UTC day or month, reserved at
 * admission and settled with the metered truth ({@link dev.tokenmeter.governance.BudgetBook}), and
 * the notices they raise; drift of live traffic away from a benchmark's workload
 * ({@link dev.tokenmeter.governance.DriftMonitor}, {@link dev.tokenmeter.governance.DriftCheck}). Pure: time is injected, no network code except the webhook's JDK client.
 *
 * <p>May use: core.., ledger..
 */
package dev.tokenmeter.governance;
