package dev.tokenmeter.governance;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.ledger.MeteredRequest;

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
    return new MeteredRequest("r", 0, tenant, model, "default", "/v1/chat/completions", true,
        error == null ? 200 : 503, error, error == null ? null : "boom", error == null ? "stop" : null, 10, 20,
        TokenCountSource.USAGE, -1, -1, 0, ttftNanos, tpotNanos, ttftNanos < 0 ? -1 : ttftNanos + 1_000_000_000L,
        -1, -1, -1, 20, 0, Double.NaN, null);
  }
}
