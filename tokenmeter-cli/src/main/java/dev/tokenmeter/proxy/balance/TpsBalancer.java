package dev.tokenmeter.proxy.balance;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.ledger.MeteredRequest;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * Routing by TPS curve: each request goes to the upstream whose predicted per-user decode TPS at
 * its in-flight count + 1 (its {@link TpsCurve}) is highest, in this order of preference:
 *
 * <ol>
 *   <li>a cold upstream (no curve yet) with nothing in flight: one request at a time explores it;
 *   <li>a healthy upstream that stays at or above the fluid threshold with one more request;
 *   <li>an upstream cooling down after a failure that stays above the threshold;
 *   <li>a healthy upstream below the threshold; then one cooling down.
 * </ol>
 *
 * Within a rank the highest prediction wins, the fewest in flight on a tie; a cold upstream already
 * exploring counts as exactly at the threshold. An upstream cools down for {@link
 * Balance#coolDownNanos()} after a request fails on its side (connect, 5xx, 429, protocol, stream
 * error, truncated); the client's own mistakes (4xx) and cancellations do not count.
 *
 * <p>Thread-safe: {@link #pick} reads the curves and cool-downs without locks.
 */
public final class TpsBalancer implements Balancer {
  private static final int EXPLORE = 0;
  private static final int HEALTHY_FLUID = 1;
  private static final int COOLING_FLUID = 2;
  private static final int HEALTHY = 3;
  private static final int COOLING = 4;

  private final Map<String, Gauge> gauges = new HashMap<>();
  private final double fluidTps;
  private final long coolDownNanos;
  private final Ticker ticker;

  /** What is known of one upstream. */
  private static final class Gauge {
    final TpsCurve curve = new TpsCurve();
    /** Until when it cools down ({@link Ticker} time); valid only when {@code cooling}. */
    volatile long coolUntilNanos;
    volatile boolean cooling;
  }

  TpsBalancer(Balance balance, Collection<String> upstreams, Ticker ticker) {
    this.fluidTps = balance.fluidTps();
    this.coolDownNanos = balance.coolDownNanos();
    this.ticker = ticker;
    for (String name : upstreams) {
      gauges.put(name, new Gauge());
    }
    balance.seeds().forEach((name, seed) -> {
      Gauge g = gauges.get(name);
      if (g == null) {
        throw new IllegalArgumentException("--tps-seed names no upstream: '" + name + "'");
      }
      seed.into(g.curve);
    });
  }

  /** The curve learned for {@code upstream} (for tests and the dashboard), or null. */
  public TpsCurve curve(String upstream) {
    Gauge g = gauges.get(upstream);
    return g == null ? null : g.curve;
  }

  @Override
  public int pick(List<String> pool, ToIntFunction<String> inFlight) {
    long now = ticker.nanos();
    int best = -1;
    int bestRank = Integer.MAX_VALUE;
    double bestTps = 0;
    int bestInFlight = 0;
    for (int i = 0; i < pool.size(); i++) {
      Gauge g = gauges.get(pool.get(i));
      int n = inFlight.applyAsInt(pool.get(i));
      double tps = g.curve.predict(n + 1);
      boolean cooling = g.cooling && now - g.coolUntilNanos < 0;
      int rank;
      if (Double.isNaN(tps)) {
        rank = n == 0 && !cooling ? EXPLORE : cooling ? COOLING_FLUID : HEALTHY_FLUID;
        tps = fluidTps;
      } else if (tps >= fluidTps) {
        rank = cooling ? COOLING_FLUID : HEALTHY_FLUID;
      } else {
        rank = cooling ? COOLING : HEALTHY;
      }
      if (rank < bestRank || rank == bestRank && (tps > bestTps || tps == bestTps && n < bestInFlight)) {
        best = i;
        bestRank = rank;
        bestTps = tps;
        bestInFlight = n;
      }
    }
    return best;
  }

  /** Learns one finished request of an upstream it knows: its TPS, or its failure. Record path. */
  @Override
  public void accept(MeteredRequest r) {
    Gauge g = gauges.get(r.upstream());
    if (g == null) {
      return;
    }
    if (r.errorClass() != null) {
      if (upstreamsFault(r)) {
        g.coolUntilNanos = ticker.nanos() + coolDownNanos;
        g.cooling = true;
      }
      return;
    }
    g.curve.observe(r.inFlightAtStart() + 1, r.decodeTokensPerSecond());
  }

  private static boolean upstreamsFault(MeteredRequest r) {
    return switch (r.errorClass()) {
      case CONNECT, HTTP_429, HTTP_5XX, PROTOCOL, STREAM_ERROR, TRUNCATED -> true;
      case HTTP_4XX, CANCELLED, CONTENT_FILTER, TIMEOUT_FIRST_TOKEN, TIMEOUT_IDLE, TIMEOUT_TOTAL -> false;
    };
  }
}
