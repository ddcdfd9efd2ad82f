package dev.tokenmeter.report;

import dev.tokenmeter.scrape.GpuStage;
import java.util.List;
import java.util.Locale;

/**
 * A stage's GPU figures in words, for the terminal and report.html: {@code "GPUs (DCGM, 8): 5.1 kW
 * mean, 5.6 kW peak, util 87%; 0.42 J per output token (energy counter), 2,380 tokens/s per kW"}
 * and, across stages, {@code "at 64 users the GPUs drew 5.1 kW, 0.42 J per output token, 31% less
 * than at 16 users"}. Pure functions. docs/METRICS.md, "GPU power and energy".
 */
public final class GpuWords {
  private GpuWords() {}

  /**
   * The stage's line; says when there is no energy figure, and why. {@code currency} null leaves the
   * energy cost out.
   */
  public static String stage(GpuStage g, String currency) {
    StringBuilder b = new StringBuilder("GPUs (").append(g.source().displayName()).append(", ").append(g.gpus())
        .append("): ");
    if (Double.isNaN(g.powerMeanWatts())) {
      b.append("no power reading in the window");
    } else {
      b.append(power(g.powerMeanWatts())).append(" mean, ").append(power(g.powerPeakWatts())).append(" peak");
    }
    if (!Double.isNaN(g.utilMeanPercent())) {
      b.append(", util ").append(fmt("%.0f%%", g.utilMeanPercent()));
    }
    if (Double.isNaN(g.joulesPerOutputToken())) {
      b.append("; no energy per token (").append(Double.isNaN(g.energyJoules()) ? "no energy reading"
          : "no output tokens in the window").append(')');
      return b.toString();
    }
    b.append("; ").append(joules(g.joulesPerOutputToken())).append(" per output token (")
        .append(g.energySource().equals("counter") ? "energy counter" : g.energySource()).append("), ")
        .append(fmt("%,.0f", g.outputTokensPerSecondPerKw())).append(" tokens/s per kW");
    if (currency != null && !Double.isNaN(g.energyCostPerMillionOutputTokens())) {
      b.append(", energy ").append(fmt("%.4f", g.energyCostPerMillionOutputTokens())).append(' ').append(currency)
          .append(" per 1M output tokens");
    }
    return b.toString();
  }

  /**
   * The last stage against the first, in words: {@code "at 64 users the GPUs drew 5.1 kW, 0.42 J
   * per output token, 31% less than at 16 users"}; null with fewer than two stages with energy.
   *
   * @param labels each stage's load in words ({@code "64 users"}, {@code "8 req/s"})
   */
  public static String compare(List<GpuStage> stages, List<String> labels) {
    int first = -1;
    int last = -1;
    for (int i = 0; i < stages.size(); i++) {
      GpuStage g = stages.get(i);
      if (g != null && g.joulesPerOutputToken() > 0) {
        first = first < 0 ? i : first;
        last = i;
      }
    }
    if (first < 0 || first == last) {
      return null;
    }
    GpuStage a = stages.get(first);
    GpuStage z = stages.get(last);
    double change = z.joulesPerOutputToken() / a.joulesPerOutputToken() - 1;
    String drew = Double.isNaN(z.powerMeanWatts()) ? "" : " drew " + power(z.powerMeanWatts()) + ",";
    return "at " + labels.get(last) + " the GPUs" + drew + " " + joules(z.joulesPerOutputToken())
        + " per output token, " + fmt("%.0f%%", Math.abs(change) * 100) + (change <= 0 ? " less" : " more")
        + " than at " + labels.get(first);
  }

  /** {@code "64 users"}, {@code "8 req/s"}: a stage's load as the words above say it. */
  public static String load(int concurrency, double ratePerSecond) {
    return concurrency > 0 ? concurrency + (concurrency == 1 ? " user" : " users")
        : fmt("%s req/s", ratePerSecond == Math.rint(ratePerSecond) ? String.valueOf((long) ratePerSecond)
            : fmt("%.2f", ratePerSecond));
  }

  static String power(double watts) {
    return watts >= 1000 ? fmt("%.1f kW", watts / 1000) : fmt("%.0f W", watts);
  }

  static String joules(double j) {
    return j >= 10 ? fmt("%.1f J", j) : j >= 0.1 ? fmt("%.2f J", j) : fmt("%.3f J", j);
  }

  private static String fmt(String f, Object... args) {
    return String.format(Locale.ROOT, f, args);
  }
}
