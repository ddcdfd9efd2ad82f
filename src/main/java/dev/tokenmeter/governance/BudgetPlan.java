package dev.tokenmeter.governance;

import java.net.URI;
import java.util.List;

/**
 * The budgets a proxy runs with, validated. Immutable.
 *
 * @param budgets every tenant's budgets (a tenant may have several, e.g. tokens per day and money
 *     per month)
 * @param defaultOutputTokens the output tokens reserved for a request that names no {@code
 *     max_tokens} or {@code max_completion_tokens}
 * @param webhookOrNull where notices are posted, or null
 */
public record BudgetPlan(List<Budget> budgets, int defaultOutputTokens, URI webhookOrNull) {
  /** Reserved for a request without an output limit: 4096 tokens. */
  public static final int DEFAULT_OUTPUT_TOKENS = 4096;

  public BudgetPlan {
    budgets = List.copyOf(budgets);
    if (defaultOutputTokens < 0) {
      throw new IllegalArgumentException("the default output reservation must be 0 or more");
    }
  }

  /** No budgets. */
  public static BudgetPlan none() {
    return new BudgetPlan(List.of(), DEFAULT_OUTPUT_TOKENS, null);
  }
}
