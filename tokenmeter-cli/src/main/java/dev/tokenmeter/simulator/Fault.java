package dev.tokenmeter.simulator;

/**
 * A fault the simulator can inject into one response; see {@link Faults} for probabilities and
 * parameters, and the package documentation for the exact bytes each one sends.
 */
public enum Fault {
  /** No fault: a normal response. */
  NONE,
  /** HTTP 429 with an OpenAI-style {@code RateLimitError} body, at arrival. */
  HTTP_429,
  /** HTTP 500 with an {@code InternalServerError} body, at arrival. */
  HTTP_500,
  /** HTTP 503 with a {@code ServiceUnavailableError} body, at arrival. */
  HTTP_503,
  /** The status line and everything after it are delayed by {@link Faults#slowHeadersNanos()}. */
  SLOW_HEADERS,
  /** Streams only: the connection is closed when token K is due (K tokens were sent). */
  DISCONNECT,
  /** Streams only: token K and every later token are due {@link Faults#stallNanos()} later. */
  STALL,
  /** Streams only: an event whose data is not valid JSON, sent just before token K. */
  MALFORMED_CHUNK,
  /** Streams only: an error object event then {@code [DONE]} when token K is due; no more tokens. */
  ERROR_EVENT;

  /** Whether the fault acts inside an SSE stream (and is skipped for non-streamed requests). */
  public boolean midStream() {
    return switch (this) {
      case DISCONNECT, STALL, MALFORMED_CHUNK, ERROR_EVENT -> true;
      case NONE, HTTP_429, HTTP_500, HTTP_503, SLOW_HEADERS -> false;
    };
  }
}
