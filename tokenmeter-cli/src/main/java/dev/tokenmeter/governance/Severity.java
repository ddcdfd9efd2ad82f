package dev.tokenmeter.governance;

import java.util.List;

/**
 * The two alerts of each SLO and when they fire: the SRE workbook's recommended multiwindow,
 * multi-burn-rate parameters (Google, "The Site Reliability Workbook", ch. 5 "Alerting on SLOs",
 * table 5-8): page when 2% of a 30-day budget burns in 1 h (rate 14.4) or 5% in 6 h (rate 6), each
 * confirmed by its short window of 1/12 the length; ticket when 10% burns in 3 days (rate 1),
 * confirmed over 6 h.
 */
public enum Severity {
  PAGE("page", List.of(new Condition(BurnWindow.H1, BurnWindow.M5, 14.4), new Condition(BurnWindow.H6, BurnWindow.M30, 6))),
  TICKET("ticket", List.of(new Condition(BurnWindow.D3, BurnWindow.H6, 1)));

  /**
   * Fires while the burn rate over both windows is above {@code rate}.
   *
   * @param longWindow the window that says the budget is burning
   * @param shortWindow the window that says it is still burning (resolves the alert soon after a fix)
   * @param rate the burn rate both must pass (1 = the budget lasts exactly the SLO period)
   */
  public record Condition(BurnWindow longWindow, BurnWindow shortWindow, double rate) {
    /** Whether it holds for burn rates indexed by {@link BurnWindow#ordinal()}; NaN (no traffic) never does. */
    public boolean holds(double[] burn) {
      return burn[longWindow.ordinal()] > rate && burn[shortWindow.ordinal()] > rate;
    }
  }

  private final String label;
  private final List<Condition> conditions;

  Severity(String label, List<Condition> conditions) {
    this.label = label;
    this.conditions = conditions;
  }

  /** {@code page}, {@code ticket}: the {@code severity} label. */
  public String label() {
    return label;
  }

  /** Fires when any of them holds. */
  public List<Condition> conditions() {
    return conditions;
  }

  /** Whether the alert fires for these burn rates. */
  public boolean fires(double[] burn) {
    return conditions.stream().anyMatch(c -> c.holds(burn));
  }
}
