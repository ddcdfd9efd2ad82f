package dev.tokenmeter.core.analysis;

import dev.tokenmeter.core.load.LoadModel;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The degradation curve of a run: per load, per-user decode TPS (p50 and its slow tail p10),
 * aggregate output TPS, headline TTFT (from the schedule in open loops, {@link LatencyOrigin}) and
 * TPOT percentiles and the error rate, in load order; and its
 * {@link Knee}. Immutable; a pure function of the stages.
 *
 * @param loadKind {@code "concurrency"} (closed loop) or {@code "rate"} (open loop, requests/s)
 * @param kneeTokensPerSecond the absolute knee bar asked for, NaN when off
 * @param kneeFraction the relative knee bar asked for, NaN when off
 * @param points one per stage, in load order (equal loads in run order)
 * @param knee where per-user TPS falls below the bar
 */
public record Sweep(
    String loadKind, double kneeTokensPerSecond, double kneeFraction, List<Point> points, Knee knee) {

  public Sweep {
    points = List.copyOf(points);
  }

  /**
   * The curve of {@code stages}, which must all be closed-loop or all open-loop.
   *
   * @param kneeTokensPerSecond absolute knee bar, tokens/s; NaN or 0 for none
   * @param kneeFraction knee bar as a fraction of the lowest load's TPS; NaN or 0 for none
   */
  public static Sweep of(List<StageResult> stages, double kneeTokensPerSecond, double kneeFraction) {
    List<Point> points =
        stages.stream().map(Point::of).sorted(Comparator.comparingDouble(Point::load)).toList();
    String kind = !stages.isEmpty() && stages.get(0).plan().load() instanceof LoadModel.Open ? "rate" : "concurrency";
    return new Sweep(kind, off(kneeTokensPerSecond), off(kneeFraction), points,
        Knee.find(points, kneeTokensPerSecond, kneeFraction));
  }

  private static double off(double v) {
    return v > 0 ? v : Double.NaN;
  }

  /** The load of a stage: its concurrency (closed loop) or rate in requests/s (open loop). */
  public static double load(LoadModel m) {
    return switch (m) {
      case LoadModel.Closed c -> c.concurrency();
      case LoadModel.Open o -> o.ratePerSecond();
    };
  }

  /**
   * One stage on the curve. Times in ms, speeds in tokens/s, rates per second; NaN where there is no
   * value.
   *
   * @param index the stage's index in the run
   * @param label the stage's label ({@code "c=25"})
   * @param open whether the load is a rate (open loop)
   * @param load concurrency or requests/s
   * @param errorPercent failed measured requests, % of measured requests
   * @param ttftFrom the origin of the TTFT percentiles: the headline one ({@link LatencyOrigin})
   * @param ttftSentP99Millis TTFT p99 from the send, beside the headline (equal to {@code
   *     ttftP99Millis} when the headline is from the send)
   */
  public record Point(
      int index,
      String label,
      boolean open,
      double load,
      double decodeTpsP50,
      double decodeTpsP10,
      double outputTokensPerSecond,
      double requestsPerSecond,
      double goodputRequestsPerSecond,
      double ttftP50Millis,
      double ttftP90Millis,
      double ttftP99Millis,
      double tpotP50Millis,
      double tpotP99Millis,
      double errorPercent,
      LatencyOrigin ttftFrom,
      double ttftSentP99Millis) {

    /** The point of one stage. */
    public static Point of(StageResult r) {
      Distribution tps = r.metric(Metric.DECODE_TPS);
      LatencyOrigin from = LatencyOrigin.headlineOf(r.plan().load());
      Distribution ttft = r.metric(from.ttft());
      Distribution tpot = r.metric(Metric.TPOT);
      long total = r.requests().completed() + r.requests().failed();
      var t = r.throughput();
      return new Point(
          r.plan().index(), r.label(), r.plan().load() instanceof LoadModel.Open, Sweep.load(r.plan().load()),
          tps.p50(), tps.p10(), t.outputTokensPerSecond(), t.requestsPerSecond(), t.goodputRequestsPerSecond(),
          ttft.p50(), ttft.p90(), ttft.p99(), tpot.p50(), tpot.p99(),
          total == 0 ? Double.NaN : 100.0 * r.requests().failed() / total,
          from, r.metric(Metric.TTFT).p99());
    }

    /** A load of the same kind as this point's, named like a label: {@code "c=47.3"}, {@code "rate=3.2/s"}. */
    public String loadName(double load) {
      String v = String.format(Locale.ROOT, "%.1f", load).replaceAll("\\.0$", "");
      return open ? "rate=" + v + "/s" : "c=" + v;
    }
  }
}
