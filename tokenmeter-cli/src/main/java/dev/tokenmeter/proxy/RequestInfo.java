package dev.tokenmeter.proxy;

/**
 * What the stream path knows of a request when it starts: fixed before the first byte goes
 * upstream, read by the record path. Immutable.
 *
 * @param requestId the proxy's id ({@code x-request-id})
 * @param startedAtEpochMillis wall-clock time the request's headers arrived
 * @param receivedNanos ticker time the request's headers arrived
 * @param tenant the tenant
 * @param model the request's {@code model}, or null
 * @param upstream the upstream's name
 * @param endpoint the path without the query
 * @param route what the path is ({@link Route}): which API's decoder reads the answer; only
 *     {@linkplain Route#generation() generation} routes' bodies are parsed
 * @param inFlightAtStart requests in flight to the upstream when this one started, itself excluded
 * @param conversationOrNull the conversation key the client sent ({@link ConversationKey}), or null
 * @param streamRequested whether the request asked for a stream ({@link RequestBody#streams}): a
 *     line-delimited API's JSON answer is then read line by line, as bench reads it
 * @param promptBlocksOrNull the prompt's keyed block hashes ({@link PromptCapture}), or null
 */
record RequestInfo(
    String requestId,
    long startedAtEpochMillis,
    long receivedNanos,
    String tenant,
    String model,
    String upstream,
    String endpoint,
    Route route,
    int inFlightAtStart,
    String conversationOrNull,
    boolean streamRequested,
    dev.tokenmeter.ledger.PromptBlocks promptBlocksOrNull) {

  /** A request without captured prompt blocks. */
  RequestInfo(String requestId, long startedAtEpochMillis, long receivedNanos, String tenant, String model,
      String upstream, String endpoint, Route route, int inFlightAtStart, String conversationOrNull,
      boolean streamRequested) {
    this(requestId, startedAtEpochMillis, receivedNanos, tenant, model, upstream, endpoint, route, inFlightAtStart,
        conversationOrNull, streamRequested, null);
  }

  /** This request with the in-flight count taken when its exchange started. */
  RequestInfo withInFlightAtStart(int n) {
    return new RequestInfo(
        requestId, startedAtEpochMillis, receivedNanos, tenant, model, upstream, endpoint, route, n,
        conversationOrNull, streamRequested, promptBlocksOrNull);
  }

  /** Whether the route's responses carry tokens. */
  boolean generation() {
    return route.generation();
  }
}
