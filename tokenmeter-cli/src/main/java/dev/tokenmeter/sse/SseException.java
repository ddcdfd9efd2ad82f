package dev.tokenmeter.sse;

/**
 * The stream broke a limit of the framer (an event or a line larger than the configured maximum).
 * The message says what was exceeded and the limit. After this exception the framer has dropped the
 * partial event; the stream should be abandoned (or the framer {@link SseFramer#reset() reset} for
 * a new one).
 */
public final class SseException extends RuntimeException {

  /** Creates an exception with a message that names what was exceeded and the limit. */
  public SseException(String message) {
    super(message);
  }
}
