package dev.tokenmeter.ledger;

/**
 * What drift and workload export read of one ledger row: when it started, its model and lengths.
 *
 * @param startedAtEpochMillis when the proxy received it
 * @param model the request's model, or null
 * @param ok whether it completed
 * @param inputTokens prompt tokens, or -1 when unknown
 * @param outputTokens output tokens, or -1 when unknown
 * @param cachedTokens prompt tokens the server reported as cached, or -1 when it reported none
 * @param inFlightAtStart requests in flight to the same upstream when it started, itself excluded
 * @param conversation the conversation key the client sent, or null
 * @param endedAtEpochMillis when its answer ended (start + the proxy's queue + E2E), or -1 when unknown
 */
public record WorkloadRow(long startedAtEpochMillis, String model, boolean ok, int inputTokens, int outputTokens,
    int cachedTokens, int inFlightAtStart, String conversation, long endedAtEpochMillis) {

  /** A row without conversation or end time. */
  public WorkloadRow(long startedAtEpochMillis, String model, boolean ok, int inputTokens, int outputTokens,
      int cachedTokens, int inFlightAtStart) {
    this(startedAtEpochMillis, model, ok, inputTokens, outputTokens, cachedTokens, inFlightAtStart, null, -1);
  }
}
