package dev.tokenmeter.governance;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An SLO alert changed state: it started firing, or it resolved. Raised once per transition.
 * Immutable.
 *
 * @param slo the SLO
 * @param severity page (fast burn) or ticket (slow burn)
 * @param transition firing or resolved
 * @param burnRates the burn rate over each {@link BurnWindow}, by ordinal (NaN: no request in it)
 * @param at when it changed
 */
public record SloAlert(LiveSlo slo, Severity severity, Transition transition, double[] burnRates, Instant at)
    implements Alert {
  /** Which way the alert went. */
  public enum Transition {
    FIRING, RESOLVED;

    /** {@code firing}, {@code resolved}. */
    public String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public SloAlert {
    burnRates = burnRates.clone();
  }

  /** The burn rate over {@code w}. */
  public double burnRate(BurnWindow w) {
    return burnRates[w.ordinal()];
  }

  /**
   * One line for the log: {@code SLO alert firing (page): errors<=1%: burn rate 100 over 1h and 100
   * over 5m (threshold 14.4), 100 over 6h and 100 over 30m (threshold 6); error budget 1% of
   * requests (...)}.
   */
  public String line() {
    List<String> parts = new ArrayList<>();
    for (Severity.Condition c : severity.conditions()) {
      parts.add(String.format(Locale.ROOT, "%s over %s and %s over %s (threshold %s)", rate(c.longWindow()),
          c.longWindow().label(), rate(c.shortWindow()), c.shortWindow().label(), rate(c.rate())));
    }
    return String.format(Locale.ROOT, "SLO alert %s (%s): %s: burn rate %s; error budget %s of requests (%s)",
        transition.word(), severity.label(), slo.name(), String.join(", ", parts), percent(slo.budget()), slo.sli());
  }

  private String rate(BurnWindow w) {
    return rate(burnRate(w));
  }

  private static String rate(double r) {
    return Double.isNaN(r) ? "-" : dev.tokenmeter.core.slo.Slo.number(r);
  }

  static String percent(double share) {
    return dev.tokenmeter.core.slo.Slo.number(share * 100) + "%";
  }

  @Override
  public String what() {
    return "the " + transition.word() + " " + severity.label() + " alert of SLO '" + slo.name() + "'";
  }
}
