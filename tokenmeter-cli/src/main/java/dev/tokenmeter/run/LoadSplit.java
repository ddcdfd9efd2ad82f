package dev.tokenmeter.run;

import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import java.util.List;
import java.util.OptionalInt;

/**
 * How {@code bench --variant} shares a stage's load among its k variants: {@code --concurrency N}
 * is N users in all, N/k per variant; {@code --rate R} is R/s in all, R/k per variant, every variant
 * drawing the same arrival offsets from the stage's seed (so the variants' requests arrive in
 * pairs, triples, ...); {@code --max-concurrency M} is M/k per variant. Each variant's share is a
 * normal stage plan, so its results folder reads like a bench run at that load. Stateless.
 */
public final class LoadSplit {
  private LoadSplit() {}

  /**
   * Checks, before any server is contacted, that the load divides evenly over {@code variants}
   * and that the window is a duration (shared by all variants): {@code requests} is {@code
   * --requests} (null for a duration window), {@code concurrency} and {@code maxConcurrency} the
   * totals given. A problem is an {@link IllegalArgumentException} naming the option and the fix.
   */
  public static void check(Long requests, List<Integer> concurrency, Integer maxConcurrency, int variants) {
    if (requests != null) {
      // Each variant would end when its own N requests are done: the faster one would stop first
      // and leave the slower one alone on the server, which is no longer a fair comparison.
      throw new IllegalArgumentException("--variant needs a --duration window that all variants share, not --requests:"
          + " each variant would stop at its own time");
    }
    for (Integer c : concurrency) {
      if (c != null && c > 0) {
        divisible("--concurrency", c, variants);
      }
    }
    if (maxConcurrency != null && maxConcurrency > 0) {
      divisible("--max-concurrency", maxConcurrency, variants);
    }
  }

  /** {@code plan} with each variant's share of its load; {@code plan} itself for one lane. */
  public static StagePlan share(StagePlan plan, int variants) {
    if (variants == 1) {
      return plan;
    }
    LoadModel load =
        switch (plan.load()) {
          case LoadModel.Closed c -> new LoadModel.Closed(part(c.concurrency(), variants), c.thinkTimeNanos());
          case LoadModel.Open o -> new LoadModel.Open(o.ratePerSecond() / variants, o.arrivals(),
              o.maxConcurrency().isPresent() ? OptionalInt.of(part(o.maxConcurrency().getAsInt(), variants))
                  : OptionalInt.empty());
        };
    return plan.withLoad(load);
  }

  /** {@code ", split over 2 variants (a, b): c=2 each"}, for the line announcing a stage. */
  public static String note(StagePlan plan, List<String> names) {
    if (names.size() < 2) {
      return "";
    }
    return ", split over " + names.size() + " variants (" + String.join(", ", names) + "): "
        + share(plan, names.size()).load().label() + " each";
  }

  private static int part(int total, int variants) {
    if (total % variants != 0) {
      throw new IllegalStateException(total + " does not divide over " + variants + " variants");
    }
    return total / variants;
  }

  private static void divisible(String option, int n, int k) {
    if (n % k == 0) {
      return;
    }
    int below = n / k * k;
    int above = below + k;
    throw new IllegalArgumentException(option + " " + n + " is the total over the " + k + " variants and must divide evenly:"
        + " use " + (below > 0 ? below + " or " : "") + above + " (" + (below > 0 ? below / k + " or " : "")
        + above / k + " per variant)");
  }
}
