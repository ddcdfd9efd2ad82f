package dev.tokenmeter.simulator.accuracy;

import dev.tokenmeter.simulator.accuracy.AccuracyFit.Simulated;
import dev.tokenmeter.simulator.accuracy.AccuracyStudy.Comparison;
import dev.tokenmeter.simulator.accuracy.AccuracyStudy.Group;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Load;
import dev.tokenmeter.simulator.engine.CostTotals;
import dev.tokenmeter.simulator.engine.Platform;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link AccuracyStudy#objective} of {@link AccuracyStudy#compareLinearized} over the fitted groups
 * (TPOT/ITL and throughput; TTFT is predicted, not fitted), in flat arrays: the fit evaluates it
 * tens of thousands of times. Same numbers, none of the objects. Immutable.
 */
final class LinearModel {
  private final FitParams at;
  private final int[] profile;
  private final Platform[] platform;
  private final boolean[] open;
  private final double[] computeBound;
  private final double[] memoryBound;
  private final double[] fixed;
  private final double[] iterations;
  private final double[] sequences;
  private final double[] total;
  private final int[] pointOf;
  private final boolean[] latency;
  private final double[] published;
  private final double[] predicted;
  private final int[] bucket;
  private final double[] target;
  private final int[] bucketSize;

  LinearModel(List<Simulated> sims) {
    this.at = sims.get(0).at();
    int n = sims.size();
    profile = new int[n];
    platform = new Platform[n];
    open = new boolean[n];
    computeBound = new double[n];
    memoryBound = new double[n];
    fixed = new double[n];
    iterations = new double[n];
    sequences = new double[n];
    total = new double[n];
    List<double[]> figures = new ArrayList<>();
    Map<String, Integer> buckets = new LinkedHashMap<>();
    List<Double> targets = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Simulated s = sims.get(i);
      if (!s.at().equals(at)) {
        throw new IllegalArgumentException("points simulated at different factors");
      }
      CostTotals c = s.prediction().costs();
      profile[i] = s.profile();
      platform[i] = s.platform();
      open[i] = s.point().load() == Load.POISSON;
      computeBound[i] = c.computeBoundNanos();
      memoryBound[i] = c.memoryBoundNanos();
      fixed[i] = c.fixedNanos();
      iterations[i] = c.iterations();
      sequences[i] = c.sequences();
      total[i] = c.totalNanos();
      for (Comparison x : AccuracyStudy.compare(s.point(), s.prediction())) {
        if (Double.isNaN(x.group().targetPercent) || x.group() == Group.TTFT) {
          continue; // TTFT is predicted, not fitted (AccuracyFit)
        }
        String key = s.point().source() + "/" + x.group();
        Integer b = buckets.get(key);
        if (b == null) {
          b = buckets.size();
          buckets.put(key, b);
          targets.add(x.group().targetPercent);
        }
        boolean isLatency = x.group() != Group.THROUGHPUT;
        figures.add(new double[] {i, isLatency ? 1 : 0, x.published(), x.predicted(), b});
      }
    }
    int m = figures.size();
    pointOf = new int[m];
    latency = new boolean[m];
    published = new double[m];
    predicted = new double[m];
    bucket = new int[m];
    bucketSize = new int[buckets.size()];
    for (int j = 0; j < m; j++) {
      double[] f = figures.get(j);
      pointOf[j] = (int) f[0];
      latency[j] = f[1] == 1;
      published[j] = f[2];
      predicted[j] = f[3];
      bucket[j] = (int) f[4];
      bucketSize[bucket[j]]++;
    }
    target = targets.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** The objective at {@code f}: mean over (source, group) of median |error| / target. */
  double objective(FitParams f) {
    double[] ratio = new double[profile.length];
    for (int i = 0; i < ratio.length; i++) {
      double busy = computeBound[i] * at.mfu() / f.mfu() + memoryBound[i] * at.mbu() / f.mbu()
          + fixed[i] + iterations[i] * f.iterationOn(profile[i], platform[i])
          + sequences[i] * f.perSequenceOn(profile[i], platform[i]);
      ratio[i] = busy / total[i];
    }
    double[][] errors = new double[bucketSize.length][];
    int[] fill = new int[bucketSize.length];
    for (int b = 0; b < errors.length; b++) {
      errors[b] = new double[bucketSize[b]];
    }
    for (int j = 0; j < pointOf.length; j++) {
      int i = pointOf[j];
      double moved = latency[j] ? predicted[j] * ratio[i]
          : open[i] ? predicted[j] : predicted[j] / ratio[i];
      errors[bucket[j]][fill[bucket[j]]++] = Math.abs(moved - published[j]) / published[j] * 100;
    }
    double sum = 0;
    for (int b = 0; b < errors.length; b++) {
      Arrays.sort(errors[b]);
      double[] e = errors[b];
      double median = e.length % 2 == 1 ? e[e.length / 2] : (e[e.length / 2 - 1] + e[e.length / 2]) / 2;
      sum += median / target[b];
    }
    return sum / errors.length;
  }
}
