package dev.tokenmeter.ledger;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import java.util.Objects;

/**
 * One request the metering proxy saw, as the ledger stores it and the metrics count it: immutable,
 * built on the proxy's record path once the exchange has ended (never on the stream path).
 *
 * <p>The figures follow the measurement contract of docs/METRICS.md exactly as {@code bench} applies
 * it, with the proxy in the client's place: {@code sent} is when the proxy wrote the request to the
 * upstream, {@code firstToken} the first upstream read that carried generated text. Field names in
 * the ledger and in JSON are the snake_case forms of the components, shared with requests.jsonl
 * where both have the figure ({@code ttft_ms}, {@code tpot_ms}, {@code e2e_ms}, {@code
 * output_tokens}, {@code output_tokens_source}, {@code error_class}, ...).
 *
 * <p>Unknown values: a token count or status of {@code -1}, a time of {@code -1} ns, a TPOT or cost
 * of {@code NaN}, a {@code null} string. {@code errorClass == null} means the request completed.
 *
 * @param requestId the proxy's id for the request (also sent upstream and to the client as {@code
 *     x-request-id} when the client sent none)
 * @param startedAtEpochMillis wall-clock time the proxy received the request's headers
 * @param tenant the tenant the API key or header maps to; {@code "anonymous"} when none
 * @param model the {@code model} field of the request body, or null (e.g. GET /v1/models)
 * @param upstream the name of the upstream it was routed to; {@link #NO_UPSTREAM} when the proxy
 *     refused it itself (401, 403, 429 over budget, 400) and it went nowhere
 * @param endpoint the request path without the query ({@code /v1/chat/completions})
 * @param streamed whether the response was an event stream
 * @param httpStatus the upstream's status, or -1 when none came (connect failure)
 * @param errorClass the failure class (the same classes as bench), or null when it completed
 * @param error a short description of the failure, or null
 * @param finishReason the last {@code finish_reason} seen, or null
 * @param inputTokens prompt tokens ({@code usage.prompt_tokens}), or -1
 * @param outputTokens output tokens {@code n} (usage, else tokenizer, else chunks), or -1
 * @param outputTokensSource where {@code outputTokens} came from, or null when unknown
 * @param reasoningTokens {@code completion_tokens_details.reasoning_tokens}, or -1
 * @param cachedTokens {@code prompt_tokens_details.cached_tokens}, or -1
 * @param proxyQueueNanos from the request's headers arriving at the proxy to the upstream request
 *     being written: what the proxy itself added before the upstream saw it
 * @param ttftNanos {@code firstToken − sent}, or -1
 * @param tpotNanos {@code (lastToken − firstToken) / (n − 1)} for {@code n ≥ 2}, else NaN
 * @param e2eNanos {@code done − sent}, or -1
 * @param itlP50Nanos median inter-token latency of this request (per token), or -1
 * @param itlP99Nanos 99th percentile inter-token latency of this request (per token), or -1
 * @param itlMaxNanos largest inter-token latency of this request (per token), or -1
 * @param chunks content-carrying chunks seen
 * @param inFlightAtStart requests in flight to the same upstream when this one started, itself
 *     excluded
 * @param cost price of the request from the price table, in {@code currency}; NaN when unpriced
 * @param currency the price table's currency code, or null when unpriced
 * @param conversation the conversation key the client sent (a configured header, OpenAI's {@code
 *     prompt_cache_key} or {@code user}, Anthropic's {@code metadata.user_id}), or null
 * @param promptBlocksOrNull the prompt's keyed block hashes for {@code proxy export-trace}
 *     ({@link PromptBlocks}; ledger migration V4), or null when capture is off or there was no prompt
 */
public record MeteredRequest(
    String requestId,
    long startedAtEpochMillis,
    String tenant,
    String model,
    String upstream,
    String endpoint,
    boolean streamed,
    int httpStatus,
    ErrorClass errorClass,
    String error,
    String finishReason,
    int inputTokens,
    int outputTokens,
    TokenCountSource outputTokensSource,
    int reasoningTokens,
    int cachedTokens,
    long proxyQueueNanos,
    long ttftNanos,
    double tpotNanos,
    long e2eNanos,
    long itlP50Nanos,
    long itlP99Nanos,
    long itlMaxNanos,
    int chunks,
    int inFlightAtStart,
    double cost,
    String currency,
    String conversation,
    PromptBlocks promptBlocksOrNull) {

  /** A request without captured prompt blocks (the form before ledger migration V4). */
  public MeteredRequest(String requestId, long startedAtEpochMillis, String tenant, String model, String upstream,
      String endpoint, boolean streamed, int httpStatus, ErrorClass errorClass, String error, String finishReason,
      int inputTokens, int outputTokens, TokenCountSource outputTokensSource, int reasoningTokens, int cachedTokens,
      long proxyQueueNanos, long ttftNanos, double tpotNanos, long e2eNanos, long itlP50Nanos, long itlP99Nanos,
      long itlMaxNanos, int chunks, int inFlightAtStart, double cost, String currency, String conversation) {
    this(requestId, startedAtEpochMillis, tenant, model, upstream, endpoint, streamed, httpStatus, errorClass, error,
        finishReason, inputTokens, outputTokens, outputTokensSource, reasoningTokens, cachedTokens, proxyQueueNanos,
        ttftNanos, tpotNanos, e2eNanos, itlP50Nanos, itlP99Nanos, itlMaxNanos, chunks, inFlightAtStart, cost, currency,
        conversation, null);
  }

  /** A request without a conversation key (the form before ledger migration V3). */
  public MeteredRequest(String requestId, long startedAtEpochMillis, String tenant, String model, String upstream,
      String endpoint, boolean streamed, int httpStatus, ErrorClass errorClass, String error, String finishReason,
      int inputTokens, int outputTokens, TokenCountSource outputTokensSource, int reasoningTokens, int cachedTokens,
      long proxyQueueNanos, long ttftNanos, double tpotNanos, long e2eNanos, long itlP50Nanos, long itlP99Nanos,
      long itlMaxNanos, int chunks, int inFlightAtStart, double cost, String currency) {
    this(requestId, startedAtEpochMillis, tenant, model, upstream, endpoint, streamed, httpStatus, errorClass, error,
        finishReason, inputTokens, outputTokens, outputTokensSource, reasoningTokens, cachedTokens, proxyQueueNanos,
        ttftNanos, tpotNanos, e2eNanos, itlP50Nanos, itlP99Nanos, itlMaxNanos, chunks, inFlightAtStart, cost, currency,
        null, null);
  }

  /** The tenant name used when a request carries no known key or tenant header. */
  public static final String ANONYMOUS = "anonymous";

  /** The upstream of a request the proxy refused itself: it was sent nowhere. */
  public static final String NO_UPSTREAM = "-";

  /** True when the proxy refused the request itself and sent it nowhere. */
  public boolean refusedByProxy() {
    return NO_UPSTREAM.equals(upstream);
  }

  public MeteredRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(upstream, "upstream");
    Objects.requireNonNull(endpoint, "endpoint");
  }

  /** True when the request completed (no error class). */
  public boolean ok() {
    return errorClass == null;
  }

  /** Per-request decode speed {@code 1 / TPOT} in tokens per second, or NaN when TPOT is. */
  public double decodeTokensPerSecond() {
    return Double.isNaN(tpotNanos) || tpotNanos <= 0 ? Double.NaN : 1e9 / tpotNanos;
  }
}
