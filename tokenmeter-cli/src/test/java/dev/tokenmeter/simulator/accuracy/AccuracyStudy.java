package dev.tokenmeter.simulator.accuracy;

import dev.tokenmeter.simulator.accuracy.Predictor.Prediction;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Load;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Measured;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Point;
import dev.tokenmeter.simulator.engine.CostTotals;
import dev.tokenmeter.simulator.engine.Platform;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.Predicate;

/**
 * Every published figure beside a prediction, the relative errors and their statistics. Pure
 * functions of the points, the predictions and the factors.
 */
final class AccuracyStudy {
  private AccuracyStudy() {}

  /** What a figure measures, and the target on its median error (NaN: reported only). */
  enum Group {
    TPOT("TPOT / ITL", 10),
    THROUGHPUT("output throughput", 12),
    TTFT("TTFT", 20),
    TAIL("p99 (TTFT, TPOT)", Double.NaN);

    final String label;
    final double targetPercent;

    Group(String label, double targetPercent) {
      this.label = label;
      this.targetPercent = targetPercent;
    }
  }

  /** Whether a figure is a latency (grows with iteration time) or a rate (shrinks). */
  private enum Kind {
    LATENCY,
    RATE
  }

  /**
   * One published figure and its prediction.
   *
   * @param what the figure as the source names it ({@code "out tok/s/GPU"})
   * @param errorPercent (predicted − published) / published × 100
   */
  record Comparison(
      Point point, Group group, String what, double published, double predicted, double errorPercent) {}

  /** A figure of a point, with the prediction it is compared with. */
  private record Figure(Group group, Kind kind, String what, double published, double predicted) {}

  /** Every published figure of {@code p} beside the simulation's {@code pr}. */
  private static List<Figure> figures(Point p, Prediction pr) {
    Measured m = p.measured();
    List<Figure> out = new ArrayList<>();
    add(out, m.ttftMs(), Group.TTFT, Kind.LATENCY, "TTFT ms", pr.ttftMs());
    add(out, m.ttftP50Ms(), Group.TTFT, Kind.LATENCY, "TTFT p50 ms", pr.ttftP50Ms());
    add(out, m.itlMs(), Group.TPOT, Kind.LATENCY, "ITL ms", pr.tpotMs());
    add(out, m.itlP50Ms(), Group.TPOT, Kind.LATENCY, "ITL p50 ms", pr.itlP50Ms());
    add(out, m.outputTps(), Group.THROUGHPUT, Kind.RATE, "out tok/s", pr.outputTps());
    add(out, m.outputTpsPerGpu(), Group.THROUGHPUT, Kind.RATE, "out tok/s/GPU",
        pr.outputTps() / p.tensorParallel());
    // A static batch's latency is its throughput's inverse: batch × output / latency.
    double batchTokens = (double) p.concurrency() * p.outputTokens();
    m.batchLatencySeconds().ifPresent(v -> out.add(new Figure(Group.THROUGHPUT, Kind.RATE,
        "out tok/s (batch×out/latency " + Tables.num(v) + " s)", batchTokens / v,
        batchTokens / pr.windowSeconds())));
    add(out, m.ttftP99Ms(), Group.TAIL, Kind.LATENCY, "TTFT p99 ms", pr.ttftP99Ms());
    add(out, m.tpotP99Ms(), Group.TAIL, Kind.LATENCY, "TPOT p99 ms", pr.tpotP99Ms());
    return out;
  }

  private static void add(
      List<Figure> out, OptionalDouble v, Group g, Kind k, String what, double predicted) {
    v.ifPresent(x -> out.add(new Figure(g, k, what, x, predicted)));
  }

  /** Compares every figure of {@code p} with the simulation's prediction {@code pr}. */
  static List<Comparison> compare(Point p, Prediction pr) {
    return figures(p, pr).stream().map(f -> of(p, f, f.predicted())).toList();
  }

  /**
   * Compares every figure of {@code p} with what the simulation run at {@code at} would predict at
   * {@code f}, to first order: each iteration's time moves as its terms do (1/MFU on compute-bound
   * time, 1/MBU on memory-bound time, the overheads per iteration and per sequence), latencies in
   * proportion and saturated throughputs inversely. An open loop's throughput is its arrival rate
   * and stays. Exact at {@code f == at}; the fit uses it between simulations.
   */
  static List<Comparison> compareLinearized(Point p, Prediction pr, FitParams at, FitParams f,
      int profile, Platform platform) {
    double ratio = busyNanos(pr.costs(), at, f, profile, platform) / pr.costs().totalNanos();
    return figures(p, pr).stream().map(x -> {
      double moved = x.kind() == Kind.LATENCY ? x.predicted() * ratio
          : p.load() == Load.POISSON ? x.predicted() : x.predicted() / ratio;
      return of(p, x, moved);
    }).toList();
  }

  /** The engine's busy time had the run used {@code f} instead of {@code at}, to first order. */
  static double busyNanos(CostTotals c, FitParams at, FitParams f, int profile, Platform platform) {
    return c.computeBoundNanos() * at.mfu() / f.mfu()
        + c.memoryBoundNanos() * at.mbu() / f.mbu()
        + c.fixedNanos()
        + c.iterations() * (double) f.iterationOn(profile, platform)
        + c.sequences() * (double) f.perSequenceOn(profile, platform);
  }

  private static Comparison of(Point p, Figure f, double predicted) {
    return new Comparison(p, f.group(), f.what(), f.published(), predicted,
        (predicted - f.published()) / f.published() * 100);
  }

  /** Median of |error %| over the comparisons that pass {@code filter}; NaN when none. */
  static double medianAbsErrorPercent(List<Comparison> all, Predicate<Comparison> filter) {
    return percentile(abs(all, filter), 0.5);
  }

  /** 90th percentile of |error %| (nearest rank); NaN when none. */
  static double p90AbsErrorPercent(List<Comparison> all, Predicate<Comparison> filter) {
    return percentile(abs(all, filter), 0.9);
  }

  /** Median of the signed error %, to show a bias. */
  static double medianErrorPercent(List<Comparison> all, Predicate<Comparison> filter) {
    return percentile(all.stream().filter(filter).mapToDouble(Comparison::errorPercent).toArray(), 0.5);
  }

  private static double[] abs(List<Comparison> all, Predicate<Comparison> filter) {
    return all.stream().filter(filter).mapToDouble(c -> Math.abs(c.errorPercent())).toArray();
  }

  /** The median interpolates between the middle two; other quantiles take the nearest rank. */
  static double percentile(double[] v, double q) {
    if (v.length == 0) {
      return Double.NaN;
    }
    double[] s = v.clone();
    Arrays.sort(s);
    if (q == 0.5) {
      return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
    return s[Math.min(s.length - 1, (int) Math.ceil(q * s.length) - 1)];
  }

  /**
   * The fit's objective: the mean, over every source and fitted group it has figures of (TPOT/ITL
   * and throughput; TTFT is predicted, not fitted), of the median |error| divided by the group's
   * target. Every source weighs the same whatever its number of points, and a group counts in
   * proportion to how far it is from its own target.
   */
  static double objective(List<Comparison> c, List<String> sources) {
    double sum = 0;
    int n = 0;
    for (String s : sources) {
      for (Group g : Group.values()) {
        if (Double.isNaN(g.targetPercent) || g == Group.TTFT) {
          continue;
        }
        double m = medianAbsErrorPercent(c, x -> x.group() == g && x.point().source().equals(s));
        if (!Double.isNaN(m)) {
          sum += m / g.targetPercent;
          n++;
        }
      }
    }
    return n == 0 ? Double.NaN : sum / n;
  }
}
