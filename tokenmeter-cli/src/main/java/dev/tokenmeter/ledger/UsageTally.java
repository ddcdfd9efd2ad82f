package dev.tokenmeter.ledger;

import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Adds up the requests of one group; single-threaded. Values go into the histograms exactly as
 * {@code bench}'s stage recorder puts them: nanoseconds rounded to whole ns, decode TPS in
 * milli-tokens per second ({@link Metric.Unit#MILLI_TOKENS_PER_SECOND}), 3 significant digits.
 */
final class UsageTally {
  private static final int DIGITS = 3;

  private long requests;
  private static final String CANCELLED = dev.tokenmeter.core.request.ErrorClass.CANCELLED.wireName();
  private long errors;
  private final Map<String, Long> errorsByClass = new TreeMap<>();
  private long inputTokens;
  private long outputTokens;
  private long reasoningTokens;
  private long cachedTokens;
  private final Histogram ttftNanos = new Histogram(DIGITS);
  private final Histogram tpotNanos = new Histogram(DIGITS);
  private final Histogram decodeMilliTps = new Histogram(DIGITS);
  private final Map<String, Double> spend = new HashMap<>();
  private long unpriced;

  /**
   * One request's figures, as read from the ledger: {@code -1} for an unknown count or time, NaN
   * for an unknown TPOT, TPS or cost.
   */
  record Figures(
      String errorClassOrNull,
      int inputTokens,
      int outputTokens,
      int reasoningTokens,
      int cachedTokens,
      long ttftNanos,
      double tpotNanos,
      double decodeTps,
      double cost,
      String currency) {}

  void add(Figures f) {
    requests++;
    inputTokens += Math.max(0, f.inputTokens());
    outputTokens += Math.max(0, f.outputTokens());
    reasoningTokens += Math.max(0, f.reasoningTokens());
    cachedTokens += Math.max(0, f.cachedTokens());
    if (Double.isNaN(f.cost())) {
      unpriced++;
    } else {
      spend.merge(f.currency() == null ? "" : f.currency(), f.cost(), Double::sum);
    }
    if (f.errorClassOrNull() != null) {
      // A client that hung up is not the service failing: listed by class, not an error.
      if (!CANCELLED.equals(f.errorClassOrNull())) {
        errors++;
      }
      errorsByClass.merge(f.errorClassOrNull(), 1L, Long::sum);
      return;
    }
    if (f.ttftNanos() >= 0) {
      ttftNanos.recordValue(f.ttftNanos());
    }
    if (!Double.isNaN(f.tpotNanos())) {
      tpotNanos.recordValue(Math.max(0, Math.round(f.tpotNanos())));
    }
    if (!Double.isNaN(f.decodeTps())) {
      decodeMilliTps.recordValue(Math.max(0, Math.round(f.decodeTps() * 1000)));
    }
  }

  /** Adds every figure of {@code other} to this one (histograms merged). */
  void addAll(UsageTally other) {
    requests += other.requests;
    errors += other.errors;
    other.errorsByClass.forEach((k, v) -> errorsByClass.merge(k, v, Long::sum));
    inputTokens += other.inputTokens;
    outputTokens += other.outputTokens;
    reasoningTokens += other.reasoningTokens;
    cachedTokens += other.cachedTokens;
    ttftNanos.add(other.ttftNanos);
    tpotNanos.add(other.tpotNanos);
    decodeMilliTps.add(other.decodeMilliTps);
    other.spend.forEach((k, v) -> spend.merge(k, v, Double::sum));
    unpriced += other.unpriced;
  }

  UsageRow row(String key) {
    double perMs = Metric.Unit.NANOSECONDS.perReportUnit();
    return new UsageRow(
        key,
        requests,
        errors,
        errorsByClass,
        inputTokens,
        outputTokens,
        reasoningTokens,
        cachedTokens,
        Distribution.of(ttftNanos, perMs),
        Distribution.of(tpotNanos, perMs),
        Distribution.of(decodeMilliTps, Metric.DECODE_TPS),
        spend,
        unpriced);
  }
}
