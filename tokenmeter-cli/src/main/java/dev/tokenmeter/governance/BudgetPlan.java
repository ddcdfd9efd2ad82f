package dev.tokenmeter.governance;

import java.net.URI;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The budgets a proxy runs with, validated. Immutable.
 *
 * @param budgets every tenant's budgets (a tenant may have several, e.g. tokens per day and money
 *     per month)
 * @param defaultOutputTokens the output tokens reserved for a request that names no {@code
 *     max_tokens} or {@code max_completion_tokens}
 * @param webhookOrNull where notices are posted, or null
 * @param contextLengths context length in tokens by model glob, tried in order: a request that
 *     names no output limit holds its model's context less its prompt instead of {@code
 *     defaultOutputTokens}
 * @param syncIntervalNanos how often the rest of the fleet's spend is read from the ledger ({@link
 *     BudgetSync}); 0: never after start
 */
public record BudgetPlan(List<Budget> budgets, int defaultOutputTokens, URI webhookOrNull,
    Map<String, Integer> contextLengths, long syncIntervalNanos) {
  /** Reserved for a request without an output limit: 4096 tokens. */
  public static final int DEFAULT_OUTPUT_TOKENS = 4096;

  public BudgetPlan {
    budgets = List.copyOf(budgets);
    contextLengths = Collections.unmodifiableMap(new LinkedHashMap<>(contextLengths));
    if (contextLengths.values().stream().anyMatch(t -> t == null || t < 1)) {
      throw new IllegalArgumentException("context lengths must be 1 token or more: " + contextLengths);
    }
    if (defaultOutputTokens < 0) {
      throw new IllegalArgumentException("the default output reservation must be 0 or more");
    }
    if (syncIntervalNanos < 0) {
      throw new IllegalArgumentException("the budget sync interval must be 0 (off) or more");
    }
  }

  /** A plan that reads the fleet's spend every {@link BudgetSync#DEFAULT_INTERVAL_NANOS}. */
  public BudgetPlan(List<Budget> budgets, int defaultOutputTokens, URI webhookOrNull,
      Map<String, Integer> contextLengths) {
    this(budgets, defaultOutputTokens, webhookOrNull, contextLengths, BudgetSync.DEFAULT_INTERVAL_NANOS);
  }

  /** A plan that knows no model's context length and reads the fleet's spend every second. */
  public BudgetPlan(List<Budget> budgets, int defaultOutputTokens, URI webhookOrNull) {
    this(budgets, defaultOutputTokens, webhookOrNull, Map.of());
  }

  /** No budgets. */
  public static BudgetPlan none() {
    return new BudgetPlan(List.of(), DEFAULT_OUTPUT_TOKENS, null);
  }
}
