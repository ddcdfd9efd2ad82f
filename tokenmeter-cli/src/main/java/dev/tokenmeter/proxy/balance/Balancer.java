package dev.tokenmeter.proxy.balance;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.ledger.MeteredRequestSink;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;

/**
 * Picks one upstream of a pool (the upstreams a route names) for each request, on the event loop;
 * learns from finished requests as a {@link MeteredRequestSink} on the record path. Thread-safe; {@link
 * #pick} never waits.
 */
public sealed interface Balancer extends MeteredRequestSink
    permits Balancer.RoundRobin, Balancer.LeastInFlight, TpsBalancer {

  /**
   * The index in {@code pool} of the upstream the next request goes to.
   *
   * @param pool upstream names, two or more
   * @param inFlight requests in flight to an upstream, by name
   */
  int pick(List<String> pool, ToIntFunction<String> inFlight);

  /** The balancer {@code balance} asks for, over {@code upstreams}, timed by {@code ticker}. */
  static Balancer of(Balance balance, Collection<String> upstreams, Ticker ticker) {
    return switch (balance.policy()) {
      case ROUND_ROBIN -> new RoundRobin();
      case LEAST_IN_FLIGHT -> new LeastInFlight();
      case TPS -> new TpsBalancer(balance, upstreams, ticker);
    };
  }

  /** Each upstream of a pool in turn. */
  final class RoundRobin implements Balancer {
    private final Map<List<String>, AtomicLong> next = new ConcurrentHashMap<>();

    @Override
    public int pick(List<String> pool, ToIntFunction<String> inFlight) {
      AtomicLong n = next.get(pool);
      if (n == null) {
        n = next.computeIfAbsent(pool, p -> new AtomicLong());
      }
      return (int) (n.getAndIncrement() % pool.size());
    }

    @Override
    public void accept(MeteredRequest request) {
      // learns nothing
    }
  }

  /** The upstream with the fewest requests in flight; the first of the tied. */
  final class LeastInFlight implements Balancer {
    @Override
    public int pick(List<String> pool, ToIntFunction<String> inFlight) {
      int best = 0;
      int bestCount = Integer.MAX_VALUE;
      for (int i = 0; i < pool.size(); i++) {
        int n = inFlight.applyAsInt(pool.get(i));
        if (n < bestCount) {
          best = i;
          bestCount = n;
        }
      }
      return best;
    }

    @Override
    public void accept(MeteredRequest request) {
      // learns nothing
    }
  }
}
