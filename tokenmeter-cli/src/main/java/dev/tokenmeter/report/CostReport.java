package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.Cost;
import java.util.Locale;

/** The cost lines of a stage's console block. A pure function of the computed figures. */
public final class CostReport {
  private CostReport() {}

  /** One line per pricing given, indented like the stage block. */
  public static String lines(Cost.Model m, Cost.StageCost c) {
    StringBuilder sb = new StringBuilder();
    String cur = " " + m.currency();
    if (c.tokens() != null) {
      Cost.Figures f = c.tokens();
      sb.append(String.format(Locale.ROOT, "  cost (tokens at %s in / %s out per 1M%s): %s%n",
          money(m.priceInPerMillion()), money(m.priceOutPerMillion()), cur, common(m, c, f, cur)));
    }
    if (c.gpu() != null) {
      Cost.Figures f = c.gpu();
      sb.append(String.format(Locale.ROOT, "  cost (%d GPU%s at %s%s/h, at this stage's throughput): %s%n",
          m.gpus(), m.gpus() == 1 ? "" : "s", money(m.gpuCostPerHour()), cur, common(m, c, f, cur)));
      if (f.deployments() > 0) {
        sb.append(String.format(Locale.ROOT,
            "    the traffic needs %d deployment%s of %d GPU%s at this stage's request rate (spread evenly, always on)%n",
            f.deployments(), f.deployments() == 1 ? "" : "s", m.gpus(), m.gpus() == 1 ? "" : "s"));
      }
    }
    return sb.toString();
  }

  private static String common(Cost.Model m, Cost.StageCost c, Cost.Figures f, String cur) {
    StringBuilder sb = new StringBuilder();
    sb.append(money(f.perRequest())).append(cur).append(" per request, ")
        .append(money(f.perMillionOutputTokens())).append(cur).append(" per 1M output tokens");
    if (c.fromSessions()) {
      sb.append(", ").append(money(f.perConversation())).append(cur).append(String.format(Locale.ROOT,
          " per conversation (as the measured sessions went: %.1f turns each on average)", c.sessionTurns()));
    } else if (m.turnsPerConversation() > 1) {
      sb.append(", ").append(money(f.perConversation())).append(cur)
          .append(" per conversation (").append(m.turnsPerConversation()).append(" requests)");
    }
    if (Double.isFinite(f.perMonth())) {
      sb.append(", ").append(money(f.perMonth())).append(cur).append(" per 30-day month at ")
          .append(ConsoleReport.num(m.trafficRequestsPerDay())).append(" req/day");
    }
    return sb.toString();
  }

  /** Money with 4 significant digits, down to tiny per-request amounts: 0.0003472, 10800. */
  public static String money(double v) {
    if (!Double.isFinite(v)) {
      return "-";
    }
    if (v == 0 || Math.abs(v) >= 1000) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    return new java.math.BigDecimal(v).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
  }
}
