package dev.tokenmeter.core.analysis;

import dev.tokenmeter.core.stats.QuantileBootstrap;
import java.util.Arrays;
import java.util.Locale;

/**
 * What a comparison's p-values rest on: the independent units its per-request values are grouped
 * into. Requests of one run share the server's state (batch composition, queue, cache), so they
 * are not independent draws; groups far enough apart nearly are.
 *
 * <ul>
 *   <li>{@link Kind#RUNS}: both sides pooled two or more runs ({@code --repeat}): each run is a unit.
 *   <li>{@link Kind#BLOCKS}: otherwise, blocks of time cut from when each request was scheduled,
 *       {@code L} whole seconds long, {@code L = max(1 s, ⌈median E2E of both sides⌉)}: a block
 *       is at least as long as a typical request, so a request rarely shares the server with
 *       requests two blocks away. A side needs {@value #MIN_BLOCKS} blocks.
 *   <li>{@link Kind#REQUESTS}: a sample with no request times (built by hand, not read from a
 *       results folder): requests as independent samples, said so.
 * </ul>
 *
 * Immutable.
 *
 * @param kind the unit
 * @param blockSeconds {@code L} for blocks, else NaN
 * @param unitOfA per value of side A's metric, its unit, numbered 0 to {@code unitsA − 1}
 * @param unitOfB the same for side B
 * @param unitsA number of units of side A
 * @param unitsB number of units of side B
 */
public record ComparisonUnits(
    Kind kind, double blockSeconds, int[] unitOfA, int[] unitOfB, int unitsA, int unitsB) {
  /** Fewest blocks of time per side for a test on blocks. */
  public static final int MIN_BLOCKS = 5;

  /** Fewest runs per side for a test on runs (Welch's test needs 2). */
  public static final int MIN_RUNS = 2;

  /** The unit of independence. */
  public enum Kind {
    RUNS,
    BLOCKS,
    REQUESTS
  }

  /** The units of {@code metric}'s values in {@code a} and {@code b}. */
  public static ComparisonUnits of(StageSample a, StageSample b, Metric metric) {
    double[] va = a.perRequest().get(metric);
    double[] vb = b.perRequest().get(metric);
    if (a.runs() >= MIN_RUNS && b.runs() >= MIN_RUNS
        && a.runOf().containsKey(metric) && b.runOf().containsKey(metric)) {
      int[] ua = a.runOf().get(metric);
      int[] ub = b.runOf().get(metric);
      return new ComparisonUnits(Kind.RUNS, Double.NaN, compact(ua), compact(ub), distinct(ua), distinct(ub));
    }
    double[] ta = a.atSeconds().get(metric);
    double[] tb = b.atSeconds().get(metric);
    if (ta == null || tb == null || ta.length != va.length || tb.length != vb.length) {
      return new ComparisonUnits(Kind.REQUESTS, Double.NaN, identity(va.length), identity(vb.length),
          va.length, vb.length);
    }
    double seconds = blockSeconds(a, b);
    int[] ua = blocks(ta, seconds);
    int[] ub = blocks(tb, seconds);
    return new ComparisonUnits(Kind.BLOCKS, seconds, compact(ua), compact(ub), distinct(ua), distinct(ub));
  }

  /** {@code max(1, ⌈median E2E⌉)} seconds over both sides' E2E values; 1 s without any. */
  static double blockSeconds(StageSample a, StageSample b) {
    double[] ea = a.perRequest().getOrDefault(Metric.E2E, new double[0]);
    double[] eb = b.perRequest().getOrDefault(Metric.E2E, new double[0]);
    double[] all = new double[ea.length + eb.length];
    System.arraycopy(ea, 0, all, 0, ea.length);
    System.arraycopy(eb, 0, all, ea.length, eb.length);
    if (all.length == 0) {
      return 1;
    }
    Arrays.sort(all);
    return Math.max(1, Math.ceil(QuantileBootstrap.quantile(all, 0.5) / 1000));
  }

  /** Whether each side has enough units for a test. */
  public boolean enough() {
    return switch (kind) {
      case RUNS -> unitsA >= MIN_RUNS && unitsB >= MIN_RUNS;
      case BLOCKS -> unitsA >= MIN_BLOCKS && unitsB >= MIN_BLOCKS;
      case REQUESTS -> unitsA > 0 && unitsB > 0;
    };
  }

  /**
   * What the p-value rests on, for tables: {@code "5 runs per side"}, {@code "A 12, B 11 blocks of
   * 2 s"}, {@code "requests as independent samples (no request times)"}.
   */
  public String basis() {
    String counts = unitsA == unitsB ? unitsA + " " : "A " + unitsA + ", B " + unitsB + " ";
    return switch (kind) {
      case RUNS -> counts + "runs" + (unitsA == unitsB ? " per side" : "");
      case BLOCKS -> counts + (blockSeconds == 1 ? "one-second blocks" : "blocks of "
          + String.format(Locale.ROOT, "%.0f", blockSeconds) + " s") + (unitsA == unitsB ? " per side" : "");
      case REQUESTS -> "requests as independent samples (no request times)";
    };
  }

  /** Why a test was not made: too few units. */
  public String tooFew() {
    return switch (kind) {
      case RUNS -> "needs " + MIN_RUNS + " runs per side, has " + basis();
      case BLOCKS -> "needs " + MIN_BLOCKS + " blocks per side, has " + basis() + "; run longer";
      case REQUESTS -> "no per-request values";
    };
  }

  /** One value per unit: the nearest-rank {@code q}-quantile of the unit's values. */
  public static double[] perUnit(double[] values, int[] unitOf, int units, double q) {
    double[][] groups = groups(values, unitOf, units);
    double[] out = new double[units];
    for (int u = 0; u < units; u++) {
      Arrays.sort(groups[u]);
      out[u] = QuantileBootstrap.quantile(groups[u], q);
    }
    return out;
  }

  private static double[][] groups(double[] values, int[] unitOf, int units) {
    int[] sizes = new int[units];
    for (int u : unitOf) {
      sizes[u]++;
    }
    double[][] groups = new double[units][];
    for (int u = 0; u < units; u++) {
      groups[u] = new double[sizes[u]];
    }
    int[] filled = new int[units];
    for (int i = 0; i < values.length; i++) {
      groups[unitOf[i]][filled[unitOf[i]]++] = values[i];
    }
    return groups;
  }

  private static int[] blocks(double[] atSeconds, double seconds) {
    int[] out = new int[atSeconds.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = (int) Math.floor(Math.max(0, atSeconds[i]) / seconds);
    }
    return out;
  }

  /** Renumbers ids to 0..k−1 in increasing order, keeping equal ids equal. */
  private static int[] compact(int[] ids) {
    int[] sorted = Arrays.stream(ids).distinct().sorted().toArray();
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = Arrays.binarySearch(sorted, ids[i]);
    }
    return out;
  }

  private static int distinct(int[] ids) {
    return (int) Arrays.stream(ids).distinct().count();
  }

  private static int[] identity(int n) {
    int[] out = new int[n];
    Arrays.setAll(out, i -> i);
    return out;
  }
}
