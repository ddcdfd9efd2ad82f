package dev.tokenmeter.client;

import java.nio.charset.StandardCharsets;

/**
 * A response payload that is malformed JSON or not an OpenAI-compatible chunk or response. The
 * message names what was wrong and shows an excerpt of the payload of at most {@value
 * #MAX_EXCERPT_CHARS} characters.
 */
public final class ProtocolException extends RuntimeException {

  /** Longest excerpt of the payload that a message shows. */
  public static final int MAX_EXCERPT_CHARS = 200;

  /** An exception whose message is {@code problem} followed by the payload excerpt. */
  public ProtocolException(String problem, byte[] payload, int offset, int length) {
    this(problem, payload, offset, length, null);
  }

  /** Like {@link #ProtocolException(String, byte[], int, int)} with the underlying cause. */
  public ProtocolException(
      String problem, byte[] payload, int offset, int length, Throwable cause) {
    super(problem + "; payload: " + excerpt(payload, offset, length), cause);
  }

  /** An exception with a message already complete (a hint put before another's message). */
  ProtocolException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * The payload as text, cut to at most {@value #MAX_EXCERPT_CHARS} characters (ending in "...")
   * with line breaks shown as {@code \n} and {@code \r} so the message stays on one line.
   */
  static String excerpt(byte[] payload, int offset, int length) {
    // 4 bytes per character at most: decoding this many bytes yields enough characters.
    int bytes = Math.min(length, MAX_EXCERPT_CHARS * 4);
    String text =
        new String(payload, offset, bytes, StandardCharsets.UTF_8)
            .replace("\n", "\\n")
            .replace("\r", "\\r");
    int room = MAX_EXCERPT_CHARS - 2; // the quotes
    if (bytes == length && text.length() <= room) {
      return '"' + text + '"';
    }
    int keep = Math.min(text.length(), room - 3);
    if (keep > 0 && Character.isHighSurrogate(text.charAt(keep - 1))) {
      keep--; // never cut a surrogate pair in half
    }
    return '"' + text.substring(0, keep) + "...\"";
  }
}
