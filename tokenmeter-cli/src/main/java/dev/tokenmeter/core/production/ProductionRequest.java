package dev.tokenmeter.core.production;

import java.util.Objects;

/**
 * One request of production traffic as the production report and comparison see it: what the
 * metering proxy recorded (docs/PROXY.md, "Ledger"), in report units. Unknown values are {@code -1}
 * for counts, NaN for times, speeds and cost, null for text. Immutable.
 *
 * @param startedAtEpochMillis wall-clock time the proxy received the request
 * @param concurrency requests in flight to the same upstream when it started, itself included
 *     ({@code in_flight_at_start + 1}): the production counterpart of a bench stage's {@code c=N};
 *     0 for a request the proxy refused itself ({@code in_flight_at_start} −1: never sent upstream),
 *     which counts in the totals and errors but in no concurrency bin
 * @param tenant the tenant it was billed to
 * @param model the model asked for, or null
 * @param errorClassOrNull the error class's wire name ({@code http_5xx}), null when it completed
 * @param ttftMs time to first token, ms, or NaN
 * @param tpotMs time per output token, ms, or NaN
 * @param e2eMs end-to-end latency, ms, or NaN
 * @param decodeTps per-user decode TPS ({@code 1 / TPOT}), tokens/s, or NaN
 * @param inputTokens prompt tokens, or -1
 * @param outputTokens output tokens, or -1
 * @param cost price of the request, or NaN when unpriced
 * @param currencyOrNull the price's currency code, or null
 */
public record ProductionRequest(
    long startedAtEpochMillis,
    int concurrency,
    String tenant,
    String model,
    String errorClassOrNull,
    double ttftMs,
    double tpotMs,
    double e2eMs,
    double decodeTps,
    long inputTokens,
    long outputTokens,
    double cost,
    String currencyOrNull) {

  public ProductionRequest {
    Objects.requireNonNull(tenant, "tenant");
    if (concurrency < 0) {
      throw new IllegalArgumentException("concurrency counts the request itself (0: refused by the proxy), got " + concurrency);
    }
  }

  /** True when the request completed (no error class). */
  public boolean ok() {
    return errorClassOrNull == null;
  }
}
