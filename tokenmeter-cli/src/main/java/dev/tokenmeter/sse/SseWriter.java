package dev.tokenmeter.sse;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Formats server-sent events as UTF-8 bytes, for servers (the simulator, the proxy). Stateless and
 * thread-safe.
 *
 * <p>An event is written as optional {@code event:}, {@code id:} and {@code retry:} lines, then one
 * {@code data:} line per line of its data, then a blank line; lines end with LF. SSE cannot carry a
 * CR in data: CRLF and lone CR in the data end a line just as LF does, so a reader gets them back
 * as {@code '\n'} (what {@link SseFramer} returns is the data with CRLF and CR turned into LF).
 *
 * <pre>{@code
 * channel.write(SseWriter.data(json));        // "data: {json}\n\n"
 * channel.write(SseWriter.data("[DONE]"));
 * // Pre-encoded once per response, then one copy of the token per event:
 * byte[] start = SseWriter.dataStart(jsonUpToToken), end = SseWriter.dataEnd(jsonAfterToken);
 * }</pre>
 */
public final class SseWriter {

  private static final byte[] DATA = ascii("data: ");
  private static final byte[] EVENT = ascii("event: ");
  private static final byte[] ID = ascii("id: ");
  private static final byte[] RETRY = ascii("retry: ");

  private SseWriter() {}

  /** {@code data: <data>\n\n}, one {@code data:} line per line of {@code data}. */
  public static byte[] data(String data) {
    return data(data.getBytes(StandardCharsets.UTF_8));
  }

  /** Like {@link #data(String)} for data already encoded as UTF-8 (not modified, not kept). */
  public static byte[] data(byte[] utf8) {
    if (indexOfLineBreak(utf8, 0, utf8.length) < 0) {
      // Fast path: one line, one allocation.
      byte[] out = new byte[DATA.length + utf8.length + 2];
      System.arraycopy(DATA, 0, out, 0, DATA.length);
      System.arraycopy(utf8, 0, out, DATA.length, utf8.length);
      out[out.length - 2] = '\n';
      out[out.length - 1] = '\n';
      return out;
    }
    byte[] out = new byte[dataLinesLength(utf8) + 1];
    int end = writeDataLines(utf8, out, 0);
    out[end] = '\n';
    return out;
  }

  /**
   * The start of a one-line data event: {@code "data: "} then {@code utf8}. With {@link
   * #dataEnd(byte[])} a server can encode the fixed parts of its events once and copy only the
   * part that changes per event (a token): {@code dataStart(a)}, then {@code middle}, then {@code
   * dataEnd(b)} are the bytes of {@code data(a + middle + b)} as long as {@code middle} holds no
   * line break (escaped JSON never does).
   *
   * @throws IllegalArgumentException if {@code utf8} holds a line break
   */
  public static byte[] dataStart(byte[] utf8) {
    checkSingleLine(utf8, "data piece");
    byte[] out = new byte[DATA.length + utf8.length];
    System.arraycopy(DATA, 0, out, 0, DATA.length);
    System.arraycopy(utf8, 0, out, DATA.length, utf8.length);
    return out;
  }

  /**
   * The end of a one-line data event begun with {@link #dataStart(byte[])}: {@code utf8}, then the
   * line's end and the blank line that dispatches the event.
   *
   * @throws IllegalArgumentException if {@code utf8} holds a line break
   */
  public static byte[] dataEnd(byte[] utf8) {
    checkSingleLine(utf8, "data piece");
    byte[] out = new byte[utf8.length + 2];
    System.arraycopy(utf8, 0, out, 0, utf8.length);
    out[out.length - 2] = '\n';
    out[out.length - 1] = '\n';
    return out;
  }

  /** A comment line ({@code : text\n}) that readers ignore; used as a keep-alive. */
  public static byte[] comment(String text) {
    checkSingleLine(text, "comment");
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[utf8.length + 3];
    out[0] = ':';
    out[1] = ' ';
    System.arraycopy(utf8, 0, out, 2, utf8.length);
    out[out.length - 1] = '\n';
    return out;
  }

  /**
   * The whole event: {@code event:} unless the type is the default {@value SseEvent#DEFAULT_TYPE},
   * {@code id:} unless the id is empty, {@code retry:} when {@link SseEvent#retryMillis()} is not
   * negative, the data lines, and the blank line that dispatches it.
   *
   * @throws IllegalArgumentException if the type or id contain a line break, or the id a NUL
   */
  public static byte[] encode(SseEvent event) {
    byte[] out = new byte[encodedLength(event)];
    int end = encode(event, out, 0);
    assert end == out.length;
    return out;
  }

  /** The exact number of bytes {@link #encode(SseEvent, byte[], int)} writes for {@code event}. */
  public static int encodedLength(SseEvent event) {
    int n = dataLinesLength(event.dataBytes()) + 1;
    if (!event.type().equals(SseEvent.DEFAULT_TYPE)) {
      checkSingleLine(event.type(), "event type");
      n += EVENT.length + utf8Length(event.type()) + 1;
    }
    if (!event.id().isEmpty()) {
      checkSingleLine(event.id(), "id");
      if (event.id().indexOf('\0') >= 0) {
        throw new IllegalArgumentException("an SSE id cannot contain NUL (readers ignore it)");
      }
      n += ID.length + utf8Length(event.id()) + 1;
    }
    if (event.retryMillis() >= 0) {
      n += RETRY.length + Long.toString(event.retryMillis()).length() + 1;
    }
    return n;
  }

  /**
   * Writes {@code event} into {@code out} from {@code offset}, which must have {@link
   * #encodedLength(SseEvent)} bytes free; returns the offset after the last byte written.
   */
  public static int encode(SseEvent event, byte[] out, int offset) {
    int at = offset;
    if (!event.type().equals(SseEvent.DEFAULT_TYPE)) {
      at = writeLine(EVENT, event.type().getBytes(StandardCharsets.UTF_8), out, at);
    }
    if (!event.id().isEmpty()) {
      at = writeLine(ID, event.id().getBytes(StandardCharsets.UTF_8), out, at);
    }
    if (event.retryMillis() >= 0) {
      at = writeLine(RETRY, ascii(Long.toString(event.retryMillis())), out, at);
    }
    at = writeDataLines(event.dataBytes(), out, at);
    out[at++] = '\n';
    return at;
  }

  /** Writes {@code event} at the buffer's position and advances it. */
  public static void encode(SseEvent event, ByteBuffer out) {
    int length = encodedLength(event);
    if (out.remaining() < length) {
      throw new IllegalArgumentException(
          "buffer has " + out.remaining() + " bytes free, the event needs " + length);
    }
    if (out.hasArray()) {
      int end = encode(event, out.array(), out.arrayOffset() + out.position());
      out.position(end - out.arrayOffset());
    } else {
      out.put(encode(event));
    }
  }

  private static int writeLine(byte[] prefix, byte[] value, byte[] out, int at) {
    System.arraycopy(prefix, 0, out, at, prefix.length);
    System.arraycopy(value, 0, out, at + prefix.length, value.length);
    int end = at + prefix.length + value.length;
    out[end] = '\n';
    return end + 1;
  }

  /** Bytes of the {@code data:} lines for {@code utf8}, each ending with LF. */
  private static int dataLinesLength(byte[] utf8) {
    int n = 0;
    int start = 0;
    while (true) {
      int eol = indexOfLineBreak(utf8, start, utf8.length);
      int end = eol < 0 ? utf8.length : eol;
      n += DATA.length + (end - start) + 1;
      if (eol < 0) {
        return n;
      }
      start = nextLineStart(utf8, eol);
    }
  }

  private static int writeDataLines(byte[] utf8, byte[] out, int offset) {
    int at = offset;
    int start = 0;
    while (true) {
      int eol = indexOfLineBreak(utf8, start, utf8.length);
      int end = eol < 0 ? utf8.length : eol;
      System.arraycopy(DATA, 0, out, at, DATA.length);
      at += DATA.length;
      System.arraycopy(utf8, start, out, at, end - start);
      at += end - start;
      out[at++] = '\n';
      if (eol < 0) {
        return at;
      }
      start = nextLineStart(utf8, eol);
    }
  }

  /** The start of the line after the break at {@code eol}: CRLF is one break. */
  private static int nextLineStart(byte[] b, int eol) {
    return b[eol] == '\r' && eol + 1 < b.length && b[eol + 1] == '\n' ? eol + 2 : eol + 1;
  }

  private static int indexOfLineBreak(byte[] b, int from, int end) {
    for (int i = from; i < end; i++) {
      if (b[i] == '\n' || b[i] == '\r') {
        return i;
      }
    }
    return -1;
  }

  private static void checkSingleLine(String s, String what) {
    if (s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("an SSE " + what + " cannot contain a line break");
    }
  }

  private static void checkSingleLine(byte[] utf8, String what) {
    if (indexOfLineBreak(utf8, 0, utf8.length) >= 0) {
      throw new IllegalArgumentException("an SSE " + what + " cannot contain a line break");
    }
  }

  private static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
