package dev.tokenmeter.ledger;

import dev.tokenmeter.core.analysis.Distribution;
import java.util.Map;

/**
 * Usage of one group (a tenant, model, upstream or UTC day) in a window.
 *
 * <p>Token sums count only requests whose count is known. Distributions are of completed requests
 * only (errors apart, as {@code bench} reports them), from HdrHistograms with 3 significant digits,
 * summarised by {@link Distribution} exactly as {@code bench} does.
 *
 * @param key the group's value ({@code "(none)"} for a request without one, e.g. no model)
 * @param requests requests in the group, failed ones included
 * @param errors failed requests, client cancellations apart (a client that hung up is not the
 *     service failing)
 * @param errorsByClass failed and cancelled requests by error class wire name ({@code http_5xx},
 *     {@code cancelled}), sorted
 * @param inputTokens sum of known prompt tokens
 * @param outputTokens sum of known output tokens
 * @param reasoningTokens sum of known reasoning tokens
 * @param cachedTokens sum of known cached prompt tokens
 * @param ttftMs TTFT of completed requests, in ms
 * @param tpotMs TPOT of completed requests, in ms
 * @param decodeTps per-user decode TPS ({@code 1 / TPOT}) of completed requests, tokens/s
 * @param spend summed cost by currency code, sorted
 * @param unpricedRequests requests without a price (no model in the price table)
 */
public record UsageRow(
    String key,
    long requests,
    long errors,
    Map<String, Long> errorsByClass,
    long inputTokens,
    long outputTokens,
    long reasoningTokens,
    long cachedTokens,
    Distribution ttftMs,
    Distribution tpotMs,
    Distribution decodeTps,
    Map<String, Double> spend,
    long unpricedRequests) {

  /** The key of a group whose column is empty (a request without a model). */
  public static final String NONE = "(none)";

  /** Requests the client cancelled (hung up before the answer ended): not errors. */
  public long cancelled() {
    return errorsByClass.getOrDefault(dev.tokenmeter.core.request.ErrorClass.CANCELLED.wireName(), 0L);
  }

  public UsageRow {
    errorsByClass = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(errorsByClass));
    spend = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(spend));
  }
}
