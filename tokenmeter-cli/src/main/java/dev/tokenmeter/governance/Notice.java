package dev.tokenmeter.governance;

import java.time.Instant;
import java.util.Locale;

/**
 * A budget crossed one of its thresholds (50, 80 or 100 % of its limit) for the first time in its
 * period. Immutable.
 *
 * @param budget the budget
 * @param percent the threshold crossed: 50, 80 or 100
 * @param used what was spent in the period when it was noticed, in the budget's unit
 * @param at when it was noticed
 * @param resetsAt when the period ends
 */
public record Notice(Budget budget, int percent, double used, Instant at, Instant resetsAt) implements Alert {

  /** One line for the log. */
  public String line() {
    return String.format(Locale.ROOT, "budget notice: tenant '%s' reached %d%% of its %s budget (%s used); resets %s",
        budget.tenant(), percent, budget.describe(), budget.amount(used), resetsAt);
  }

  @Override
  public String what() {
    return "the " + percent + "% notice of tenant '" + budget.tenant() + "'";
  }
}
