package dev.tokenmeter.governance;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.testkit.MeteredRequestBuilder;

/** Metered requests for the SLO tests: only what an SLI reads is set. */
final class SloRequests {
  private SloRequests() {}

  /** A completed chat request of {@code tenant} to {@code model} on upstream {@code default}. */
  static MeteredRequest ok(String tenant, String model, long ttftMillis, double tpotMillis) {
    return request(tenant, model, null, ttftMillis * 1_000_000L, tpotMillis * 1e6);
  }

  /** A request that failed with a 5xx. */
  static MeteredRequest failed(String tenant, String model) {
    return request(tenant, model, ErrorClass.HTTP_5XX, -1, Double.NaN);
  }

  static MeteredRequest request(String tenant, String model, ErrorClass error, long ttftNanos, double tpotNanos) {
    return MeteredRequestBuilder.chat(tenant, model, "default").id("r").startedAt(0)
        .failed(error, error == null ? 200 : 503).error(error == null ? null : "boom").tokens(10, 20, -1, -1)
        .times(0, ttftNanos, tpotNanos, ttftNanos < 0 ? -1 : ttftNanos + 1_000_000_000L).build();
  }
}
