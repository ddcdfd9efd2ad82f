package dev.tokenmeter.simulator;

import java.util.Objects;

/**
 * Ground truth for one generation request: when the server meant to emit each token and when it
 * did. All times are readings of the server's {@link dev.tokenmeter.core.time.Ticker} (by default
 * {@code System.nanoTime}, which on Linux every process shares, so they compare directly with a
 * client's timestamps taken with the same clock).
 *
 * <p>{@code intendedNanos[i]} is the due time of token {@code i} from the {@link TimingModel} (plus
 * any injected stall or slow-header delay); {@code actualNanos[i]} is the ticker reading right
 * before the write and flush that carried token {@code i}. Tokens coalesced into one flush (zero
 * delay) share one actual time. For a non-streamed response every token's actual time is the
 * time the whole body was written. Both arrays have {@link #tokenCount()} entries: the tokens
 * actually written, which is fewer than planned when a fault or the client cut the response.
 * The arrays are shared, not copied: do not modify them.
 *
 * @param request the request as the timing model saw it (arrival, prompt and output lengths)
 * @param clientRequestId the value of the client's {@code X-Request-Id} header, or null
 * @param fault the fault injected into this response ({@link Fault#NONE} for none)
 * @param ending how the response ended
 * @param cachedPromptTokens prompt tokens the prefix cache served (as the response's usage reports
 *     them); 0 when none, or when the response ended before it was scheduled
 * @param headersNanos when the response status line was written, or -1 if it never was
 * @param intendedNanos due time of each written token
 * @param actualNanos write time of each written token
 */
public record EmissionRecord(
    GenerationRequest request,
    String clientRequestId,
    Fault fault,
    Ending ending,
    int cachedPromptTokens,
    long headersNanos,
    long[] intendedNanos,
    long[] actualNanos) {

  /** How a response ended. */
  public enum Ending {
    /** All tokens sent, {@code finish_reason} "stop" (natural end, EOS). */
    STOP,
    /** All tokens sent, {@code finish_reason} "length" ({@code max_tokens} reached). */
    LENGTH,
    /** A tool call's arguments all sent, {@code finish_reason} "tool_calls" (docs/SIM-SERVE.md, "Tool calls"). */
    TOOL_CALLS,
    /** An injected HTTP error status (429, 500, 503) instead of a response. */
    HTTP_ERROR,
    /** An injected error event inside the 200 stream, then {@code [DONE]}. */
    ERROR_EVENT,
    /** The server closed the connection mid-stream (injected fault). */
    SERVER_DISCONNECT,
    /** The client closed the connection before the response ended. */
    CLIENT_DISCONNECT,
    /** The server was shut down before the response ended. */
    SERVER_SHUTDOWN;

    /** The OpenAI {@code finish_reason} sent, or null when the response did not finish. */
    public String finishReason() {
      return switch (this) {
        case STOP -> "stop";
        case LENGTH -> "length";
        case TOOL_CALLS -> "tool_calls";
        default -> null;
      };
    }
  }

  public EmissionRecord {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(fault, "fault");
    Objects.requireNonNull(ending, "ending");
    if (intendedNanos.length != actualNanos.length) {
      throw new IllegalArgumentException(
          "intended/actual lengths differ: " + intendedNanos.length + " vs " + actualNanos.length);
    }
  }

  /** The server's sequence number for the request (also {@code request().serverRequestId()}). */
  public long serverRequestId() {
    return request.serverRequestId();
  }

  /** When the request's last byte was read (also {@code request().arrivalNanos()}). */
  public long arrivalNanos() {
    return request.arrivalNanos();
  }

  /** Tokens actually written (EOS included when the response stopped naturally). */
  public int tokenCount() {
    return actualNanos.length;
  }

  /** The OpenAI {@code finish_reason} sent ("stop", "length"), or null. */
  public String finishReason() {
    return ending.finishReason();
  }
}
