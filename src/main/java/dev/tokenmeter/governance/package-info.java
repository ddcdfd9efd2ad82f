/**
 * Governing live traffic: per-tenant budgets of tokens or money per UTC day or month, reserved at
 * admission and settled with the metered truth ({@link dev.tokenmeter.governance.BudgetBook}), and
 * the notices they raise. Pure: time is injected, no network code except the webhook's JDK client.
 */
package dev.tokenmeter.governance;
