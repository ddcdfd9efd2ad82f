package dev.tokenmeter.core.production;

import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * The production degradation curve: requests binned by the concurrency actually in flight when
 * each started ({@link ProductionRequest#concurrency()}), with per-user decode TPS, TTFT and TPOT
 * per bin, and the knee where the slow tail of per-user TPS (p10) falls below a threshold.
 * Immutable; computed by {@link #of}.
 *
 * <p>A bench stage holds its concurrency for a whole window; production traffic does not, so each
 * request is placed by what it shared the upstream with at its start. Distributions are of completed
 * requests, from HdrHistograms with 3 significant digits, exactly as bench records them (ms from
 * whole nanoseconds, decode TPS in milli-tokens per second).
 *
 * <p>The knee: bins in concurrency order, taking part only when they hold at least {@link
 * #MIN_KNEE_VALUES} decode-TPS values (a p10 of fewer is one or two requests); the first such bin
 * whose p10 is below the threshold is the first below, the one before it the last meeting it.
 *
 * @param bins one per concurrency seen, in increasing order
 * @param thresholdTokensPerSecond the per-user TPS bar, tokens/s
 * @param knee what the knee search found
 */
public record InFlightCurve(List<Bin> bins, double thresholdTokensPerSecond, Knee knee) {
  /** The fluid-reading line: 30 tokens/s per user, the default bar. */
  public static final double DEFAULT_THRESHOLD_TPS = 30;

  /** Fewest decode-TPS values a bin needs to take part in the knee search. */
  public static final int MIN_KNEE_VALUES = 10;

  private static final int DIGITS = 3;

  public InFlightCurve {
    bins = List.copyOf(bins);
  }

  /**
   * One concurrency's requests.
   *
   * @param concurrency requests in flight at start, the request included
   * @param requests requests that started at it, failed ones included
   * @param errors failed requests
   * @param decodeTps per-user decode TPS of completed requests, tokens/s
   * @param ttftMs TTFT of completed requests, ms
   * @param tpotMs TPOT of completed requests, ms
   */
  public record Bin(
      int concurrency, long requests, long errors, Distribution decodeTps, Distribution ttftMs, Distribution tpotMs) {
    /** {@code "c=8"}: the label a bench stage of this concurrency has. */
    public String label() {
      return "c=" + concurrency;
    }

    /** Whether the bin takes part in the knee search. */
    public boolean enoughForKnee() {
      return decodeTps.count() >= MIN_KNEE_VALUES;
    }
  }

  /** What the knee search found. */
  public enum Status {
    /** p10 fell below the bar between two bins. */
    CROSSED,
    /** Every bin with enough requests met the bar. */
    NONE_BELOW,
    /** The lowest bin with enough requests is already below the bar. */
    ALL_BELOW,
    /** No bin has enough requests. */
    TOO_FEW;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * The knee.
   *
   * @param status what was found
   * @param lastMeeting concurrency of the last bin meeting the bar before the first below, or -1
   * @param firstBelow concurrency of the first bin below the bar, or -1
   */
  public record Knee(Status status, int lastMeeting, int firstBelow) {}

  /** Bins {@code requests} by concurrency and finds the knee of their p10 against {@code thresholdTps}. */
  public static InFlightCurve of(List<ProductionRequest> requests, double thresholdTps) {
    if (!(thresholdTps > 0)) {
      throw new IllegalArgumentException("the per-user TPS threshold must be above 0 tokens/s, got " + thresholdTps);
    }
    Map<Integer, Tally> byConcurrency = new TreeMap<>();
    for (ProductionRequest r : requests) {
      if (r.concurrency() == 0) {
        continue; // refused by the proxy: never in flight upstream
      }
      byConcurrency.computeIfAbsent(r.concurrency(), c -> new Tally()).add(r);
    }
    List<Bin> bins = new ArrayList<>();
    byConcurrency.forEach((c, t) -> bins.add(t.bin(c)));
    return new InFlightCurve(bins, thresholdTps, knee(bins, thresholdTps));
  }

  private static Knee knee(List<Bin> bins, double bar) {
    Bin previous = null;
    for (Bin b : bins) {
      if (!b.enoughForKnee()) {
        continue;
      }
      if (b.decodeTps().p10() < bar) {
        return previous == null
            ? new Knee(Status.ALL_BELOW, -1, b.concurrency())
            : new Knee(Status.CROSSED, previous.concurrency(), b.concurrency());
      }
      previous = b;
    }
    return previous == null ? new Knee(Status.TOO_FEW, -1, -1) : new Knee(Status.NONE_BELOW, previous.concurrency(), -1);
  }

  /** Adds up one bin; single-threaded. */
  static final class Tally {
    private long requests;
    private long errors;
    private final Histogram decodeMilliTps = new Histogram(DIGITS);
    private final Histogram ttftNanos = new Histogram(DIGITS);
    private final Histogram tpotNanos = new Histogram(DIGITS);

    void add(ProductionRequest r) {
      requests++;
      if (!r.ok()) {
        errors++;
        return;
      }
      record(decodeMilliTps, r.decodeTps() * 1000);
      record(ttftNanos, r.ttftMs() * 1e6);
      record(tpotNanos, r.tpotMs() * 1e6);
    }

    private static void record(Histogram h, double value) {
      if (!Double.isNaN(value) && !Double.isInfinite(value)) {
        h.recordValue(Math.max(0, Math.round(value)));
      }
    }

    Bin bin(int concurrency) {
      double perMs = Metric.Unit.NANOSECONDS.perReportUnit();
      return new Bin(concurrency, requests, errors, Distribution.of(decodeMilliTps, Metric.DECODE_TPS),
          Distribution.of(ttftNanos, perMs), Distribution.of(tpotNanos, perMs));
    }
  }
}
