package dev.tokenmeter.proxy;

import dev.tokenmeter.client.ChunkParser;
import dev.tokenmeter.core.metrics.RequestMetrics;
import java.util.Arrays;

/** What one record thread reuses from request to request. Confined to that thread. */
final class RecordContext {
  private final ChunkParser parser = new ChunkParser();
  private final TokenCounters counters;
  private final Prices prices;
  private long[] itl = new long[256];
  private int itlCount;

  RecordContext(TokenCounters counters, Prices prices) {
    this.counters = counters;
    this.prices = prices;
  }

  ChunkParser parser() {
    return parser;
  }

  TokenCounters counters() {
    return counters;
  }

  Prices prices() {
    return prices;
  }

  /** p50, p99 and max of the request's per-token inter-token latencies, nanoseconds; -1 each if none. */
  long[] itlSummary(RequestMetrics m) {
    itlCount = 0;
    m.forEachItlPerToken(
        (valueNanos, count) -> {
          if (itlCount + count > itl.length) {
            itl = Arrays.copyOf(itl, (int) Math.max(itl.length * 2L, itlCount + count));
          }
          Arrays.fill(itl, itlCount, (int) (itlCount + count), valueNanos);
          itlCount += (int) count;
        });
    return RequestState.summary(itl, itlCount);
  }
}
