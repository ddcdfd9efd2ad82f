package dev.tokenmeter.proxy.dashboard;

import dev.tokenmeter.ledger.MeteredRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * One upstream's warm-up: when its first request started, when the first token of its first
 * completed request arrived, and whether its decode TPS has reached a steady state.
 *
 * <p>Steady: each of the last {@link #STEADY_MINUTES} complete wall-clock minutes holds at least
 * {@link #MIN_PER_MINUTE} completed requests with a decode TPS (counted in the minute they ended),
 * and the highest of those minutes' median decode TPS is at most {@link #STEADY_SPREAD} (10%) above
 * the lowest. Medians come from an HdrHistogram of milli-tokens/s, 3 significant digits, as
 * everywhere in tokenmeter. Not thread-safe: {@link LiveBoard} serialises access.
 */
final class WarmUp {
  static final int STEADY_MINUTES = 3;
  static final int MIN_PER_MINUTE = 5;
  /** (max − min) / min of the minutes' medians at most this: 10%. */
  static final double STEADY_SPREAD = 0.10;

  private long firstRequestMs = Long.MAX_VALUE;
  private long firstHealthyTokenMs = Long.MAX_VALUE;
  /** Decode TPS (milli-tokens/s) of completed requests by the minute they ended; the last few only. */
  private final TreeMap<Long, Histogram> byMinute = new TreeMap<>();

  void add(MeteredRequest r) {
    firstRequestMs = Math.min(firstRequestMs, r.startedAtEpochMillis());
    if (!r.ok()) {
      return;
    }
    double sentMs = r.startedAtEpochMillis() + Math.max(0, r.proxyQueueNanos()) / 1e6;
    if (r.ttftNanos() >= 0 && r.outputTokens() > 0) {
      firstHealthyTokenMs = Math.min(firstHealthyTokenMs, (long) Math.floor(sentMs + r.ttftNanos() / 1e6));
    }
    double tps = r.decodeTokensPerSecond();
    if (Double.isNaN(tps) || r.e2eNanos() < 0) {
      return;
    }
    long minute = (long) Math.floor((sentMs + r.e2eNanos() / 1e6) / TokenRates.MINUTE_MILLIS);
    if (!byMinute.isEmpty() && minute < byMinute.lastKey() - STEADY_MINUTES) {
      return; // ended in a minute too old to matter
    }
    byMinute.computeIfAbsent(minute, m -> new Histogram(3)).recordValue(Math.max(0, Math.round(tps * 1000)));
    while (byMinute.firstKey() < byMinute.lastKey() - STEADY_MINUTES) {
      byMinute.pollFirstEntry();
    }
  }

  /** The status at {@code nowMillis}; {@code inFlight} requests to it now. */
  BoardView.WarmUpView view(long nowMillis, int inFlight) {
    if (firstRequestMs == Long.MAX_VALUE) {
      return new BoardView.WarmUpView("idle", null, null, null, List.of(),
          inFlight > 0 ? "its first request is in flight" : "no request yet");
    }
    if (firstHealthyTokenMs == Long.MAX_VALUE) {
      return new BoardView.WarmUpView("warming", firstRequestMs, null, null, List.of(),
          "no request has completed with a token yet");
    }
    long nowMinute = Math.floorDiv(nowMillis, TokenRates.MINUTE_MILLIS);
    List<Double> medians = new ArrayList<>();
    double lo = Double.POSITIVE_INFINITY;
    double hi = 0;
    int full = 0;
    for (long m = nowMinute - STEADY_MINUTES; m < nowMinute; m++) {
      Histogram h = byMinute.get(m);
      if (h == null || h.getTotalCount() < MIN_PER_MINUTE) {
        medians.add(null);
        continue;
      }
      double median = h.getValueAtPercentile(50) / 1000.0;
      medians.add(median);
      lo = Math.min(lo, median);
      hi = Math.max(hi, median);
      full++;
    }
    long warmUp = Math.max(0, firstHealthyTokenMs - firstRequestMs);
    boolean steady = full == STEADY_MINUTES && hi <= lo * (1 + STEADY_SPREAD);
    String detail;
    if (full < STEADY_MINUTES) {
      detail = String.format(Locale.ROOT, "%d of the last %d minutes had %d or more completed requests",
          full, STEADY_MINUTES, MIN_PER_MINUTE);
    } else {
      detail = String.format(Locale.ROOT, "per-minute median decode TPS %.1f to %.1f tok/s: %s %.0f%% apart",
          lo, hi, steady ? "within" : "more than", STEADY_SPREAD * 100);
    }
    return new BoardView.WarmUpView(steady ? "steady" : "warm", firstRequestMs, firstHealthyTokenMs, warmUp,
        java.util.Collections.unmodifiableList(medians), detail);
  }
}
