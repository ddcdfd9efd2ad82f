package dev.tokenmeter.core.production;

import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageSample;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Production traffic as stages a comparison can match with a bench run's: one {@link StageSample}
 * per concurrency in flight at start, labelled {@code c=N} like a closed-loop bench stage, so that
 * {@link dev.tokenmeter.core.analysis.RunComparison#of} compares the benchmark and production at the same concurrency.
 *
 * <p>Each request keeps its wall-clock start as its time ({@link StageSample#atSeconds()}, seconds
 * from the bin's first request), so the comparison's blocks of time ({@link dev.tokenmeter.core.analysis.ComparisonUnits}) are
 * cut from when production requests ran: requests close in time share the server's state, blocks
 * apart nearly do not. Output tokens/s and requests/s of a bin are NaN: requests of one concurrency
 * are scattered over the window, so there is no window to divide by. Stateless.
 */
public final class ProductionStages {
  private static final int DIGITS = 3;

  private ProductionStages() {}

  /** One sample per concurrency seen, in increasing order, indexed 0, 1, ... */
  public static List<StageSample> of(List<ProductionRequest> requests) {
    Map<Integer, List<ProductionRequest>> byConcurrency = new TreeMap<>();
    for (ProductionRequest r : requests) {
      if (r.concurrency() == 0) {
        continue; // refused by the proxy: never in flight upstream
      }
      byConcurrency.computeIfAbsent(r.concurrency(), c -> new ArrayList<>()).add(r);
    }
    List<StageSample> out = new ArrayList<>();
    byConcurrency.forEach((c, rs) -> out.add(sample(out.size(), "c=" + c, rs)));
    return out;
  }

  private static StageSample sample(int index, String label, List<ProductionRequest> requests) {
    long first = requests.stream().mapToLong(ProductionRequest::startedAtEpochMillis).min().orElse(0);
    Map<Metric, Values> values = new EnumMap<>(Metric.class);
    long failed = 0;
    for (ProductionRequest r : requests) {
      if (!r.ok()) {
        failed++;
        continue;
      }
      double at = (r.startedAtEpochMillis() - first) / 1000.0;
      add(values, Metric.TTFT, r.ttftMs(), at);
      add(values, Metric.TPOT, r.tpotMs(), at);
      add(values, Metric.E2E, r.e2eMs(), at);
      add(values, Metric.DECODE_TPS, r.decodeTps(), at);
    }
    Map<Metric, Distribution> distributions = new EnumMap<>(Metric.class);
    Map<Metric, double[]> perRequest = new EnumMap<>(Metric.class);
    Map<Metric, double[]> atSeconds = new EnumMap<>(Metric.class);
    values.forEach((m, v) -> {
      distributions.put(m, v.distribution(m));
      perRequest.put(m, v.values.stream().mapToDouble(Double::doubleValue).toArray());
      atSeconds.put(m, v.at.stream().mapToDouble(Double::doubleValue).toArray());
    });
    return new StageSample(index, label, distributions, perRequest, Double.NaN, Double.NaN,
        requests.size() - failed, failed, atSeconds, Map.of(), 1);
  }

  private static void add(Map<Metric, Values> values, Metric m, double v, double at) {
    if (!Double.isNaN(v) && !Double.isInfinite(v)) {
      Values vs = values.computeIfAbsent(m, k -> new Values());
      vs.values.add(v);
      vs.at.add(at);
    }
  }

  /** One metric's values of a bin, in report units, and their times. */
  private static final class Values {
    final List<Double> values = new ArrayList<>();
    final List<Double> at = new ArrayList<>();

    /** Recorded as bench records it: whole nanoseconds, or milli-tokens per second for TPS. */
    Distribution distribution(Metric m) {
      Histogram h = new Histogram(DIGITS);
      double per = m.unit().perReportUnit();
      for (double v : values) {
        h.recordValue(Math.max(0, Math.round(v * per)));
      }
      return Distribution.of(h, m);
    }
  }
}
