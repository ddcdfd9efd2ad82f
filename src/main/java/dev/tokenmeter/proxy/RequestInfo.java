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
 * @param generation whether the path is one whose responses carry tokens (chat/completions,
 *     completions, embeddings): only those bodies are parsed
 * @param inFlightAtStart requests in flight to the upstream when this one started, itself excluded
 */
record RequestInfo(
    String requestId,
    long startedAtEpochMillis,
    long receivedNanos,
    String tenant,
    String model,
    String upstream,
    String endpoint,
    boolean generation,
    int inFlightAtStart) {

  /** This request with the in-flight count taken when its exchange started. */
  RequestInfo withInFlightAtStart(int n) {
    return new RequestInfo(
        requestId, startedAtEpochMillis, receivedNanos, tenant, model, upstream, endpoint, generation, n);
  }

  /** Whether {@code path} (without query) is an OpenAI endpoint whose responses carry tokens. */
  static boolean isGeneration(String path) {
    return path.endsWith("/chat/completions")
        || path.endsWith("/completions")
        || path.endsWith("/embeddings");
  }
}
