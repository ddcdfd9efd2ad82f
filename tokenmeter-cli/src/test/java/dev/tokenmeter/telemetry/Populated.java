package dev.tokenmeter.telemetry;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.testkit.MeteredRequestBuilder;

/** Bench and proxy metrics with every family holding data, for tests that look at all their names. */
final class Populated {
  private static final long MS = 1_000_000L;

  private Populated() {}

  /** Bench metrics after a completed and a refused request and one in-flight reading; drained. */
  static BenchMetrics bench() throws InterruptedException {
    BenchRequests requests = new BenchRequests();
    BenchMetrics metrics = BenchMetrics.create();
    BenchMetrics.Stage stage = new BenchMetrics.Stage("chat", "m", 1, "c=1", "a");
    var sink = metrics.sink(stage, true, (t, m) -> {});
    sink.accept(null, requests.completed(Phase.MEASURED, 10, 3, 10, 20, 30));
    sink.accept(null, requests.refused(Phase.MEASURED));
    metrics.inFlight(stage, () -> 0);
    metrics.drain();
    return metrics;
  }

  /** Proxy metrics after a priced request, a failed one, a drop, a budget reading and one in flight. */
  static PrometheusProxyMetrics proxy() {
    PrometheusProxyMetrics metrics = PrometheusProxyMetrics.create();
    metrics.accept(MeteredRequestBuilder.chat("t", "m", "u").tokens(10, 3, 1, 2).times(100_000, 50 * MS, 10e6, 90 * MS)
        .itl(MS, 2 * MS, 3 * MS).cost(0.01, "USD").build());
    metrics.accept(MeteredRequestBuilder.chat("t", "m", "u").failed(ErrorClass.HTTP_5XX, 500).build());
    metrics.dropped("record_queue");
    metrics.refused("budget");
    metrics.watchLedger(() -> 1, () -> 2);
    metrics.watchBudgetSync(() -> 3);
    metrics.budgetUsed("t", "tokens", "day", 0.5);
    metrics.started("u");
    return metrics;
  }
}
