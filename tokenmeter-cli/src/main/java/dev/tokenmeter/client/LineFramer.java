package dev.tokenmeter.client;

import java.util.Arrays;

/**
 * Incremental line splitter for newline-delimited JSON bodies (Ollama): feed it the bytes of one
 * body as they arrive, in chunks of any size, and it calls the listener once per non-blank line,
 * in order, with the line's bytes (its LF or CRLF removed).
 *
 * <p>Lines are split on the LF byte, which never occurs inside a multi-byte UTF-8 sequence, so a
 * character cut across two reads is decoded (by the listener) only once its line is whole. A line
 * that lies whole in the caller's array is passed without copying; only a line split across reads
 * is copied. A line longer than the limit is a {@link ProtocolException}. A last line without its
 * LF is never delivered: {@link #hasPartialLine()} tells the caller the body ended mid-line.
 *
 * <p>Not thread-safe: one framer per stream, fed from one thread. Shared by the client and the
 * proxy's record path.
 */
public final class LineFramer {

  /** Receives each line; the bytes are valid during the call only. */
  @FunctionalInterface
  public interface Listener {
    void onLine(byte[] bytes, int offset, int length);
  }

  /** Default limit on one line: 16 MiB, as for one SSE event. */
  static final int DEFAULT_MAX_LINE_BYTES = 16 << 20;

  private final Listener listener;
  private final int maxLineBytes;
  private byte[] pending = new byte[256];
  private int pendingLength;

  public LineFramer(Listener listener) {
    this(listener, DEFAULT_MAX_LINE_BYTES);
  }

  LineFramer(Listener listener, int maxLineBytes) {
    this.listener = listener;
    this.maxLineBytes = maxLineBytes;
  }

  /** Splits {@code length} bytes at {@code offset} into lines, delivering every complete one. */
  public void feed(byte[] bytes, int offset, int length) {
    int end = offset + length;
    int start = offset;
    for (int i = offset; i < end; i++) {
      if (bytes[i] != '\n') {
        continue;
      }
      if (pendingLength > 0) {
        append(bytes, start, i - start);
        int n = pendingLength;
        pendingLength = 0;
        deliver(pending, 0, n);
      } else {
        deliver(bytes, start, i - start);
      }
      start = i + 1;
    }
    if (start < end) {
      append(bytes, start, end - start);
    }
  }

  /** True when the bytes fed so far end inside a line (the body was cut mid-line). */
  public boolean hasPartialLine() {
    for (int i = 0; i < pendingLength; i++) {
      if (pending[i] > ' ') {
        return true;
      }
    }
    return false;
  }

  private void append(byte[] bytes, int offset, int length) {
    int n = pendingLength + length;
    if (n > maxLineBytes) {
      int shown = Math.min(pendingLength, 200);
      pendingLength = 0;
      throw new ProtocolException("a line longer than " + maxLineBytes + " bytes", pending, 0, shown);
    }
    if (n > pending.length) {
      pending = Arrays.copyOf(pending, Math.max(n, pending.length * 2));
    }
    System.arraycopy(bytes, offset, pending, pendingLength, length);
    pendingLength = n;
  }

  private void deliver(byte[] bytes, int offset, int length) {
    if (length > maxLineBytes) {
      throw new ProtocolException("a line longer than " + maxLineBytes + " bytes", bytes, offset, Math.min(length, 200));
    }
    int n = length;
    if (n > 0 && bytes[offset + n - 1] == '\r') {
      n--;
    }
    for (int i = offset; i < offset + n; i++) {
      if (bytes[i] > ' ') {
        listener.onLine(bytes, offset, n);
        return;
      }
    }
  }
}
