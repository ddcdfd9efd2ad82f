package dev.tokenmeter.proxy;

/**
 * What the stream path tells the record path about one request, in order: immutable, built on the
 * event loop, consumed on a record thread. Bytes are the request's own copy.
 */
sealed interface RecordEvent {
  RequestState state();

  /** The request's last byte was handed to the upstream socket. */
  record Sent(RequestState state, long nanos) implements RecordEvent {}

  /** The upstream's response headers arrived. {@code contentType} is lower-case, "" when none. */
  record Headers(RequestState state, int status, String contentType, long nanos) implements RecordEvent {}

  /** One upstream read's body bytes, as the upstream wrote them, read at {@code nanos}. */
  record Bytes(RequestState state, byte[] bytes, long nanos) implements RecordEvent {}

  /**
   * The proxy refused the request itself (no key, a tenant not allowed, over budget, no such
   * upstream, not HTTP): answered with {@code status}, never sent upstream. The only event of its
   * request.
   */
  record Refused(RequestState state, int status, String message) implements RecordEvent {}

  /** The exchange ended; nothing follows. */
  record Ended(RequestState state, Ending ending, String message, long nanos) implements RecordEvent {}

  /** How the stream path saw the exchange end. */
  enum Ending {
    /** The upstream's response body ended (its last chunk, or its Content-Length). */
    BODY_END,
    /** The upstream closed the connection before the response ended. */
    UPSTREAM_CLOSED,
    /** The upstream sent bytes that are not HTTP. */
    UPSTREAM_PROTOCOL,
    /** No connection to the upstream could be made (the client got a 502). */
    CONNECT_FAILED,
    /** The client closed its connection before the response ended. */
    CLIENT_CANCELLED
  }
}
