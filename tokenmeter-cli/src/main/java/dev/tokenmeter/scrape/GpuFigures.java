package dev.tokenmeter.scrape;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Computes a stage's {@link GpuStage} from the GPU readings of a run: a pure function, no clock.
 * docs/METRICS.md, "GPU power and energy".
 *
 * <p>Energy per GPU over the window {@code [from, to]}: from its energy counter when it has one in
 * at least two readings, else by integrating its power. The counter is made continuous first (a
 * reading lower than the one before, a reset or a restarted exporter, counts from zero: the
 * increase is the new value), then read at {@code from} and {@code to} by linear interpolation
 * between the readings around each (extended at the rate of the nearest two beyond the first or
 * last). Power is integrated with the trapezoid rule over the readings, linear between them and
 * held at the first and last value beyond them. Either way the window's edges need no reading of
 * their own, and a reading every second on a 60 s window is exact to the interpolation.
 */
public final class GpuFigures {
  private static final double NANOS_PER_SECOND = 1e9;
  private static final double JOULES_PER_KWH = 3.6e6;

  private GpuFigures() {}

  /**
   * The stage's GPU figures.
   *
   * @param source what the readings came from
   * @param readings every reading of the run so far, in time order (several exporters merged)
   * @param stage the stage's span and window (ticker times)
   * @param outputTokens output tokens of the window (the numerator of its output tokens/s)
   * @param requests completed requests of the window
   * @param pricePerKwh {@code --power-price}; NaN without
   */
  public static GpuStage of(GpuKind source, List<GpuReading> readings, ServerFigures.Span stage, double outputTokens,
      double requests, double pricePerKwh) {
    long from = stage.windowFromNanos();
    long to = stage.windowToNanos();
    double seconds = (to - from) / NANOS_PER_SECOND;
    Set<String> ids = new LinkedHashSet<>();
    readings.forEach(r -> ids.addAll(r.gpus().keySet()));
    List<GpuStage.PerGpu> perGpu = new ArrayList<>();
    double energy = 0;
    Set<String> sources = new LinkedHashSet<>();
    for (String id : ids) {
      double[][] counter = series(readings, id, Field.ENERGY);
      double[][] power = series(readings, id, Field.POWER);
      double joules;
      String how;
      if (counter[0].length >= 2) {
        joules = counterIncrease(counter, from, to);
        how = "counter";
      } else if (power[0].length >= 1) {
        joules = integrate(power, from, to);
        how = "integrated power";
      } else {
        joules = Double.NaN;
        how = "none";
      }
      energy += joules;
      sources.add(how);
      perGpu.add(new GpuStage.PerGpu(id, meanIn(power, from, to), joules, how));
    }
    if (ids.isEmpty() || !(seconds > 0)) {
      energy = Double.NaN;
    }
    String energySource = sources.size() == 1 ? sources.iterator().next() : "mixed";
    Totals t = totals(readings, from, to);
    double perToken = outputTokens > 0 ? energy / outputTokens : Double.NaN;
    double perKw = energy > 0 ? outputTokens / seconds / (energy / seconds / 1e3) : Double.NaN;
    return new GpuStage(source, ids.size(), t.n, seconds, t.powerMean, t.powerPeak, t.utilMean, t.utilPeak,
        t.memoryMean, t.memoryPeak, t.clockMean, t.smActiveMean, t.dramActiveMean, energy, energySource, perToken,
        requests > 0 ? energy / requests : Double.NaN, perKw,
        perToken * 1e6 / JOULES_PER_KWH * pricePerKwh, perGpu,
        series(readings, ids, stage.startNanos(), stage.endNanos()));
  }

  /**
   * A stage's figures from a model's energy over its window ({@code simulate}): the same fields, one
   * reading's worth of power and utilisation.
   */
  public static GpuStage modelled(int gpus, double windowSeconds, double joules, double peakWatts,
      double utilShare, double computeShare, double memoryShare, double outputTokens, double requests,
      double pricePerKwh) {
    double perToken = outputTokens > 0 ? joules / outputTokens : Double.NaN;
    double mean = joules / windowSeconds;
    return new GpuStage(GpuKind.MODEL, gpus, 0, windowSeconds, mean, peakWatts, utilShare * 100, Double.NaN,
        Double.NaN, Double.NaN, Double.NaN, computeShare, memoryShare, joules, "model", perToken,
        requests > 0 ? joules / requests : Double.NaN, joules > 0 ? outputTokens / (joules / 1e3) : Double.NaN,
        perToken * 1e6 / JOULES_PER_KWH * pricePerKwh, List.of(), GpuStage.Series.empty());
  }

  enum Field { POWER, UTIL, MEMORY, CLOCK, SM_ACTIVE, DRAM_ACTIVE, ENERGY }

  static double value(GpuReading.Gpu g, Field f) {
    return switch (f) {
      case POWER -> g.powerWatts();
      case UTIL -> g.utilPercent();
      case MEMORY -> g.memoryUsedMib();
      case CLOCK -> g.smClockMhz();
      case SM_ACTIVE -> g.smActive();
      case DRAM_ACTIVE -> g.dramActive();
      case ENERGY -> g.energyJoules();
    };
  }

  /** {times in ns, values} of GPU {@code id}'s finite readings of {@code f}. */
  static double[][] series(List<GpuReading> readings, String id, Field f) {
    List<double[]> points = new ArrayList<>();
    for (GpuReading r : readings) {
      GpuReading.Gpu g = r.gpus().get(id);
      if (g != null && Double.isFinite(value(g, f))) {
        points.add(new double[] {r.atNanos(), value(g, f)});
      }
    }
    double[][] out = new double[2][points.size()];
    for (int i = 0; i < points.size(); i++) {
      out[0][i] = points.get(i)[0];
      out[1][i] = points.get(i)[1];
    }
    return out;
  }

  /** The counter's increase over {@code [from, to]}, resets counted from zero. */
  static double counterIncrease(double[][] counter, long from, long to) {
    double[] t = counter[0];
    double[] cum = new double[t.length];
    for (int i = 1; i < t.length; i++) {
      double d = counter[1][i] - counter[1][i - 1];
      cum[i] = cum[i - 1] + (d < 0 ? counter[1][i] : d);
    }
    return at(t, cum, to) - at(t, cum, from);
  }

  /** The piecewise-linear function through {@code (t, v)} at {@code x}, extended at the end slopes. */
  private static double at(double[] t, double[] v, double x) {
    int n = t.length;
    int i = 1;
    while (i < n - 1 && t[i] < x) {
      i++;
    }
    double dt = t[i] - t[i - 1];
    return dt == 0 ? v[i] : v[i - 1] + (v[i] - v[i - 1]) * (x - t[i - 1]) / dt;
  }

  /** ∫ power dt over {@code [from, to]} in joules: trapezoids, held constant beyond the readings. */
  static double integrate(double[][] power, long from, long to) {
    double[] t = power[0];
    double[] p = power[1];
    int n = t.length;
    if (n == 1 || to <= t[0] || from >= t[n - 1]) {
      double held = n == 1 ? p[0] : to <= t[0] ? p[0] : p[n - 1];
      return held * (to - from) / NANOS_PER_SECOND;
    }
    double joules = 0;
    if (from < t[0]) {
      joules += p[0] * (t[0] - from);
    }
    if (to > t[n - 1]) {
      joules += p[n - 1] * (to - t[n - 1]);
    }
    for (int i = 1; i < n; i++) {
      double a = Math.max(t[i - 1], from);
      double b = Math.min(t[i], to);
      if (b <= a) {
        continue;
      }
      double pa = lerp(t[i - 1], p[i - 1], t[i], p[i], a);
      double pb = lerp(t[i - 1], p[i - 1], t[i], p[i], b);
      joules += (pa + pb) / 2 * (b - a);
    }
    return joules / NANOS_PER_SECOND;
  }

  private static double lerp(double t0, double v0, double t1, double v1, double x) {
    return t1 == t0 ? v1 : v0 + (v1 - v0) * (x - t0) / (t1 - t0);
  }

  private static double meanIn(double[][] s, long from, long to) {
    double sum = 0;
    int n = 0;
    for (int i = 0; i < s[0].length; i++) {
      if (s[0][i] >= from && s[0][i] <= to) {
        sum += s[1][i];
        n++;
      }
    }
    return n == 0 ? Double.NaN : sum / n;
  }

  private record Totals(int n, double powerMean, double powerPeak, double utilMean, double utilPeak,
      double memoryMean, double memoryPeak, double clockMean, double smActiveMean, double dramActiveMean) {}

  /** Window totals: each reading's GPUs with every other GPU's last reading held (several exporters). */
  private static Totals totals(List<GpuReading> readings, long from, long to) {
    Map<String, GpuReading.Gpu> held = new LinkedHashMap<>();
    double[] sum = new double[Field.values().length];
    double[] peak = {Double.NaN, Double.NaN, Double.NaN};
    int[] count = new int[Field.values().length];
    int n = 0;
    for (GpuReading r : readings) {
      held.putAll(r.gpus());
      if (r.atNanos() < from || r.atNanos() > to) {
        continue;
      }
      n++;
      double power = total(held, Field.POWER, false);
      double util = total(held, Field.UTIL, true);
      double memory = total(held, Field.MEMORY, false);
      peak[0] = max(peak[0], power);
      peak[1] = max(peak[1], util);
      peak[2] = max(peak[2], memory);
      for (Field f : Field.values()) {
        double x = total(held, f, f != Field.POWER && f != Field.MEMORY && f != Field.ENERGY);
        if (!Double.isNaN(x)) {
          sum[f.ordinal()] += x;
          count[f.ordinal()]++;
        }
      }
    }
    return new Totals(n, mean(sum, count, Field.POWER), peak[0], mean(sum, count, Field.UTIL), peak[1],
        mean(sum, count, Field.MEMORY), peak[2], mean(sum, count, Field.CLOCK), mean(sum, count, Field.SM_ACTIVE),
        mean(sum, count, Field.DRAM_ACTIVE));
  }

  private static double max(double a, double b) {
    return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b);
  }

  private static double mean(double[] sum, int[] count, Field f) {
    return count[f.ordinal()] == 0 ? Double.NaN : sum[f.ordinal()] / count[f.ordinal()];
  }

  /** Σ (or mean, {@code average}) of {@code f} over the GPUs that report it; NaN when none does. */
  private static double total(Map<String, GpuReading.Gpu> gpus, Field f, boolean average) {
    double s = 0;
    int n = 0;
    for (GpuReading.Gpu g : gpus.values()) {
      double x = value(g, f);
      if (!Double.isNaN(x)) {
        s += x;
        n++;
      }
    }
    return n == 0 ? Double.NaN : average ? s / n : s;
  }

  private static GpuStage.Series series(List<GpuReading> readings, Set<String> ids, long startNanos, long endNanos) {
    Map<String, GpuReading.Gpu> held = new LinkedHashMap<>();
    List<double[]> points = new ArrayList<>();
    for (GpuReading r : readings) {
      held.putAll(r.gpus());
      if (r.atNanos() >= startNanos && r.atNanos() <= endNanos) {
        points.add(new double[] {(r.atNanos() - startNanos) / NANOS_PER_SECOND, total(held, Field.POWER, false),
            total(held, Field.UTIL, true)});
      }
    }
    double[] t = new double[points.size()];
    double[] p = new double[points.size()];
    double[] u = new double[points.size()];
    for (int i = 0; i < t.length; i++) {
      t[i] = points.get(i)[0];
      p[i] = points.get(i)[1];
      u[i] = points.get(i)[2];
    }
    return new GpuStage.Series(t, p, u);
  }
}
