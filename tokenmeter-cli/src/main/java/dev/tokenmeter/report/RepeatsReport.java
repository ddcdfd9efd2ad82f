package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.Repeats;
import java.util.Locale;

/**
 * The terminal table of a run's repeats: per planned stage, each headline metric as "mean ±
 * half-width (CV %)". A pure function of {@link Repeats}: nothing here computes a statistic.
 */
public final class RepeatsReport {
  private RepeatsReport() {}

  /** One block per planned stage. */
  public static String render(Repeats r) {
    StringBuilder sb = new StringBuilder();
    String level = ConsoleReport.num(100 * r.confidence()).replaceAll("\\.?0+$", "");
    sb.append(
        String.format(
            Locale.ROOT,
            "Repeats: each stage %d times (%s); mean ± half-width of the %s%% confidence interval, (CV)%n",
            r.count(),
            r.varySeed() ? "a new seed each time" : "same seed",
            level));
    for (Repeats.Group g : r.groups()) {
      sb.append(
          String.format(
              Locale.ROOT,
              "  stage %d  %s  %d of %d repeats (runs %s)%n",
              g.group() + 1,
              g.label(),
              g.stages().size(),
              r.count(),
              runs(g)));
      for (Repeats.Headline h : Repeats.Headline.values()) {
        Repeats.Estimate e = g.estimate(h);
        if (e.n() == 0) {
          continue;
        }
        boolean fraction = h == Repeats.Headline.ERROR_RATE;
        double scale = fraction ? 100 : 1;
        sb.append(
            String.format(
                Locale.ROOT,
                "    %-16s %10s ± %-9s (CV %s)%n",
                fraction ? "error rate %" : h.displayName(),
                ConsoleReport.num(scale * e.mean()),
                ConsoleReport.num(scale * e.halfWidth()),
                Double.isFinite(e.cv()) ? ConsoleReport.num(100 * e.cv()) + " %" : "-"));
      }
    }
    return sb.toString();
  }

  private static String runs(Repeats.Group g) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < g.stages().size(); i++) {
      sb.append(i == 0 ? "" : ",").append(g.stages().get(i) + 1);
    }
    return sb.toString();
  }
}
