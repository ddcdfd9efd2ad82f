package dev.tokenmeter.sse;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Incremental server-sent events parser: feed it the bytes of one response body as they arrive, in
 * chunks of any size, and it calls the listener once per dispatched event, in order.
 *
 * <p>Follows the WHATWG "event stream interpretation" algorithm exactly: lines end with CRLF, LF or
 * a lone CR (a CR ending one feed and an LF starting the next are one line ending); a UTF-8 BOM at
 * the start of the stream is skipped; {@code :} starts a comment; the field name ends at the first
 * colon and one space after it is dropped; {@code data} lines are joined with {@code '\n'}; {@code
 * event} sets the type; {@code id} sets the last event ID (persisting across events) unless it
 * contains NUL; {@code retry} counts only when all ASCII digits; unknown fields are ignored; an
 * empty line dispatches, unless no {@code data} field was seen. An event still incomplete when the
 * stream ends is never dispatched: {@link #hasPartialEvent()} tells the caller the stream was
 * truncated.
 *
 * <p>Not thread-safe: one framer per stream, fed from one thread. The listener runs on the feeding
 * thread, inside {@code feed}; if it throws, the exception propagates and the rest of that feed's
 * bytes are dropped. {@link SseException} (a line or an event over the size limit) drops the
 * partial event; {@link #reset()} makes the framer ready for a new stream.
 *
 * <pre>{@code
 * SseFramer framer = new SseFramer(event -> chunkParser.parse(event, sink));
 * framer.feed(buffer);            // per network read
 * boolean truncated = framer.hasPartialEvent();  // at end of stream
 *
 * SseFramer lent = SseFramer.lending((type, data, off, len) -> scan(data, off, len)); // no copy
 * }</pre>
 */
public final class SseFramer {
  /*
   * Design notes.
   * - Lines are split on bytes: CR and LF never occur inside a multi-byte UTF-8 sequence, so a
   *   character split across two reads is only decoded once its whole value is known.
   * - Hot path: an LLM stream is mostly "data: {json}\n\n" with both lines whole in one read. The
   *   end of line is found 8 bytes at a time (SWAR, below), and a data line that lies whole in the
   *   caller's array is referenced, not copied, until the blank line dispatches it: the data is
   *   then copied exactly once, into the event's own array, or not at all for a LendingListener
   *   (the client's path: 255 of its 335 bytes allocated per chunk were the event and this copy).
   *   Only a line split across reads is copied into the internal line buffer, and only a second
   *   data line into the data buffer.
   * - SWAR: for a word w, (x - 0x01..01) & ~x & 0x80..80 with x = w ^ (b * 0x01..01) has its lowest
   *   set bit in the first byte equal to b (later bits can be false positives from the borrow,
   *   earlier ones never are), so the lowest set bit of the OR for LF and CR is the first line end.
   */

  /** Default limit on one line and on one event's data: 16 MiB. */
  public static final int DEFAULT_MAX_EVENT_BYTES = 16 << 20;

  /** The event's consumer, called on the feeding thread. */
  @FunctionalInterface
  public interface Listener {
    /** Called once per dispatched event, in stream order. */
    void onEvent(SseEvent event);
  }

  /**
   * A consumer that reads each event's data where the framer holds it, for a hot path that reads
   * every event once (the client's one event per token): no {@link SseEvent} and no copy of the
   * data. During the call the framer's {@link #lastEventId()} is the event's ID.
   */
  @FunctionalInterface
  public interface LendingListener {
    /**
     * Called once per dispatched event, in stream order, with the same type and data bytes a
     * {@link Listener} would get. {@code data[offset, offset + length)} is lent: valid only until
     * this call returns (it may be the caller's array passed to {@code feed}, or the framer's own
     * buffer), so read it here or copy it.
     */
    void onEvent(String type, byte[] data, int offset, int length);
  }

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final long LFS = ONES * '\n';
  private static final long CRS = ONES * '\r';
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
  private static final int INITIAL_BUFFER_BYTES = 512;
  private static final int SCRATCH_BYTES = 8192;

  private final Listener listener; // exactly one of these two is non-null
  private final LendingListener lender;
  private final int maxEventBytes;

  // Stream state.
  private boolean bomDecided; // false until the first bytes showed whether a BOM starts the stream
  private int bomMatched; // bytes of the BOM seen so far while undecided (0..2)
  private boolean skipLeadingLf; // the previous feed ended with CR: an LF now is part of CRLF
  private byte[] line = new byte[INITIAL_BUFFER_BYTES]; // a line split across feeds
  private int lineLength;
  private String lastEventId = "";
  private long reconnectionMillis = -1;
  private byte[] scratch; // for direct ByteBuffers

  // Event block state, cleared at each blank line.
  private boolean hasData; // a data field was seen (its value may be empty)
  private byte[] data = new byte[INITIAL_BUFFER_BYTES];
  private int dataLength;
  // When non-null, the data is dataRef[dataRefOffset, +dataLength): the caller's, not yet copied.
  private byte[] dataRef;
  private int dataRefOffset;
  private String eventType; // null: the default type
  private long blockRetryMillis = -1;
  private boolean blockHasFields;

  /** A framer with the default limit of {@value #DEFAULT_MAX_EVENT_BYTES} bytes. */
  public SseFramer(Listener listener) {
    this(listener, DEFAULT_MAX_EVENT_BYTES);
  }

  /**
   * A framer that throws {@link SseException} when a line, or the joined data of one event, grows
   * beyond {@code maxEventBytes} bytes.
   */
  public SseFramer(Listener listener, int maxEventBytes) {
    this.listener = Objects.requireNonNull(listener, "listener");
    this.lender = null;
    this.maxEventBytes = checkedLimit(maxEventBytes);
  }

  /**
   * A framer that lends each event's data to {@code lender} instead of copying it into an {@link
   * SseEvent}, with the default limit of {@value #DEFAULT_MAX_EVENT_BYTES} bytes.
   */
  public static SseFramer lending(LendingListener lender) {
    return new SseFramer(lender, DEFAULT_MAX_EVENT_BYTES);
  }

  /** Like {@link #lending(LendingListener)} with a limit, as {@link #SseFramer(Listener, int)}. */
  public static SseFramer lending(LendingListener lender, int maxEventBytes) {
    return new SseFramer(lender, maxEventBytes);
  }

  private SseFramer(LendingListener lender, int maxEventBytes) {
    this.listener = null;
    this.lender = Objects.requireNonNull(lender, "lender");
    this.maxEventBytes = checkedLimit(maxEventBytes);
  }

  private static int checkedLimit(int maxEventBytes) {
    if (maxEventBytes < 1) {
      throw new IllegalArgumentException("maxEventBytes must be positive: " + maxEventBytes);
    }
    return maxEventBytes;
  }

  /** Consumes all remaining bytes of {@code bytes} (its position ends at its limit). */
  public void feed(ByteBuffer bytes) {
    if (bytes.hasArray()) {
      int position = bytes.position();
      int length = bytes.remaining();
      bytes.position(position + length);
      feed(bytes.array(), bytes.arrayOffset() + position, length);
      return;
    }
    if (scratch == null) {
      scratch = new byte[SCRATCH_BYTES];
    }
    while (bytes.hasRemaining()) {
      int n = Math.min(scratch.length, bytes.remaining());
      bytes.get(scratch, 0, n);
      feed(scratch, 0, n);
    }
  }

  /**
   * Consumes {@code length} bytes of {@code bytes} from {@code offset}. The framer keeps no
   * reference to the array after returning, so the caller may reuse it.
   */
  public void feed(byte[] bytes, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    int i = offset;
    int end = offset + length;
    if (i == end) {
      return;
    }
    if (!bomDecided) {
      i = skipBom(bytes, i, end);
      if (i == end) {
        return;
      }
    }
    if (skipLeadingLf) {
      skipLeadingLf = false;
      if (bytes[i] == '\n') {
        i++;
      }
    }
    while (i < end) {
      int eol = indexOfLineEnd(bytes, i, end);
      if (eol < 0) {
        appendToLine(bytes, i, end);
        break;
      }
      if (lineLength == 0) {
        processLine(bytes, i, eol, true);
      } else {
        appendToLine(bytes, i, eol);
        int n = lineLength;
        lineLength = 0;
        processLine(line, 0, n, false);
      }
      i = eol + 1;
      if (bytes[eol] == '\r') {
        if (i == end) {
          skipLeadingLf = true;
        } else if (bytes[i] == '\n') {
          i++;
        }
      }
    }
    if (dataRef != null) {
      copyReferencedData(); // the caller may reuse its array once we return
    }
  }

  /**
   * True when bytes or fields are buffered since the last dispatch: an incomplete line, or a {@code
   * data}, {@code event}, {@code id} or {@code retry} field not yet followed by a blank line. At
   * the end of a stream this means the last event was truncated. Comments alone do not count.
   */
  public boolean hasPartialEvent() {
    return lineLength > 0 || hasData || blockHasFields || bomMatched > 0;
  }

  /** The stream's last event ID so far ({@code ""} when none). */
  public String lastEventId() {
    return lastEventId;
  }

  /**
   * The stream's reconnection time from the last valid {@code retry:} field, in milliseconds, or -1
   * when none was seen (kept even when its block dispatched no event, as in the spec).
   */
  public long reconnectionTimeMillis() {
    return reconnectionMillis;
  }

  /** Forgets everything, including the last event ID: ready for a new stream. */
  public void reset() {
    bomDecided = false;
    bomMatched = 0;
    skipLeadingLf = false;
    lineLength = 0;
    lastEventId = "";
    reconnectionMillis = -1;
    clearBlock();
    if (line.length > 64 * INITIAL_BUFFER_BYTES) {
      line = new byte[INITIAL_BUFFER_BYTES]; // do not keep a 16 MiB buffer alive for a new stream
    }
    if (data.length > 64 * INITIAL_BUFFER_BYTES) {
      data = new byte[INITIAL_BUFFER_BYTES];
    }
  }

  /** Index of the first CR or LF in {@code [from, end)}, or -1. */
  private static int indexOfLineEnd(byte[] b, int from, int end) {
    int i = from;
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      long w = (long) LONGS.get(b, i);
      long lf = w ^ LFS;
      long cr = w ^ CRS;
      long found = (((lf - ONES) & ~lf) | ((cr - ONES) & ~cr)) & HIGHS;
      if (found != 0) {
        return i + (Long.numberOfTrailingZeros(found) >>> 3);
      }
    }
    for (; i < end; i++) {
      byte c = b[i];
      if (c == '\n' || c == '\r') {
        return i;
      }
    }
    return -1;
  }

  /** Consumes the BOM, or the part of it seen so far; returns the index of the next byte. */
  private int skipBom(byte[] b, int from, int end) {
    int i = from;
    while (i < end) {
      if (b[i] != BOM[bomMatched]) {
        // Not a BOM: the bytes matched so far are ordinary content of the first line.
        bomDecided = true;
        int matched = bomMatched;
        bomMatched = 0;
        appendToLine(BOM, 0, matched);
        return i;
      }
      i++;
      if (++bomMatched == BOM.length) {
        bomDecided = true;
        bomMatched = 0;
        return i;
      }
    }
    return i;
  }

  /** One line without its terminator; {@code inCallerArray} when {@code b} is the feed's array. */
  private void processLine(byte[] b, int start, int end, boolean inCallerArray) {
    int n = end - start;
    if (n == 0) {
      dispatch();
      return;
    }
    if (n > maxEventBytes) {
      throw tooLarge("line", n);
    }
    byte first = b[start];
    if (first == ':') {
      return; // comment
    }
    // Fast path for the line that is nearly every line of an LLM stream.
    if (n >= 5
        && first == 'd'
        && b[start + 1] == 'a'
        && b[start + 2] == 't'
        && b[start + 3] == 'a'
        && b[start + 4] == ':') {
      int v = start + 5;
      if (v < end && b[v] == ' ') {
        v++;
      }
      appendData(b, v, end, inCallerArray);
      return;
    }
    int colon = start;
    while (colon < end && b[colon] != ':') {
      colon++;
    }
    int value = colon;
    if (colon < end) {
      value++;
      if (value < end && b[value] == ' ') {
        value++;
      }
    }
    field(b, start, colon, value, end, inCallerArray);
  }

  private void field(byte[] b, int name, int nameEnd, int value, int end, boolean inCallerArray) {
    int nameLength = nameEnd - name;
    if (nameLength == 4 && is(b, name, "data")) {
      appendData(b, value, end, inCallerArray);
    } else if (nameLength == 5 && is(b, name, "event")) {
      eventType = value == end ? null : new String(b, value, end - value, StandardCharsets.UTF_8);
      blockHasFields = true;
    } else if (nameLength == 2 && is(b, name, "id")) {
      for (int i = value; i < end; i++) {
        if (b[i] == 0) {
          return; // an id containing NUL is ignored (spec)
        }
      }
      lastEventId = new String(b, value, end - value, StandardCharsets.UTF_8);
      blockHasFields = true;
    } else if (nameLength == 5 && is(b, name, "retry")) {
      long millis = parseDigits(b, value, end);
      if (millis >= 0) {
        reconnectionMillis = millis;
        blockRetryMillis = millis;
        blockHasFields = true;
      }
    }
    // Any other field is ignored (spec).
  }

  private static boolean is(byte[] b, int at, String ascii) {
    for (int k = 0; k < ascii.length(); k++) {
      if (b[at + k] != ascii.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  /** The value as a base-10 integer, saturating at Long.MAX_VALUE; -1 unless all ASCII digits. */
  private static long parseDigits(byte[] b, int start, int end) {
    if (start == end) {
      return -1;
    }
    long v = 0;
    for (int i = start; i < end; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        return -1;
      }
      v = v > (Long.MAX_VALUE - d) / 10 ? Long.MAX_VALUE : v * 10 + d;
    }
    return v;
  }

  private void appendData(byte[] b, int start, int end, boolean inCallerArray) {
    int n = end - start;
    blockHasFields = true;
    if (!hasData) {
      hasData = true;
      dataLength = n;
      if (inCallerArray) {
        dataRef = b;
        dataRefOffset = start;
      } else {
        ensureDataCapacity(n);
        System.arraycopy(b, start, data, 0, n);
      }
      return;
    }
    if (dataRef != null) {
      copyReferencedData();
    }
    long joined = dataLength + 1L + n;
    if (joined > maxEventBytes) {
      throw tooLarge("event data", joined);
    }
    ensureDataCapacity((int) joined);
    data[dataLength] = '\n';
    System.arraycopy(b, start, data, dataLength + 1, n);
    dataLength = (int) joined;
  }

  private void copyReferencedData() {
    ensureDataCapacity(dataLength);
    System.arraycopy(dataRef, dataRefOffset, data, 0, dataLength);
    dataRef = null;
  }

  private void dispatch() {
    if (!hasData) {
      clearBlock(); // spec: an empty data buffer resets the type and dispatches nothing
      return;
    }
    String type = eventType == null ? SseEvent.DEFAULT_TYPE : eventType;
    byte[] held = dataRef != null ? dataRef : data;
    int offset = dataRef != null ? dataRefOffset : 0;
    int length = dataLength;
    long retry = blockRetryMillis;
    clearBlock(); // before the listener, which may throw; leaves the held bytes as they are
    if (lender != null) {
      lender.onEvent(type, held, offset, length);
      return;
    }
    listener.onEvent(
        new SseEvent(type, lastEventId, Arrays.copyOfRange(held, offset, offset + length), retry));
  }

  private void clearBlock() {
    hasData = false;
    dataLength = 0;
    dataRef = null;
    eventType = null;
    blockRetryMillis = -1;
    blockHasFields = false;
  }

  private void appendToLine(byte[] b, int start, int end) {
    int n = end - start;
    long total = (long) lineLength + n;
    if (total > maxEventBytes) {
      throw tooLarge("line", total);
    }
    if (total > line.length) {
      line = Arrays.copyOf(line, grow(line.length, (int) total));
    }
    System.arraycopy(b, start, line, lineLength, n);
    lineLength = (int) total;
  }

  private void ensureDataCapacity(int needed) {
    if (needed > data.length) {
      data = Arrays.copyOf(data, grow(data.length, needed));
    }
  }

  private int grow(int current, int needed) {
    long doubled = Math.max((long) current * 2, needed);
    return (int) Math.min(doubled, maxEventBytes);
  }

  private SseException tooLarge(String what, long bytes) {
    lineLength = 0;
    clearBlock();
    return new SseException(
        "SSE "
            + what
            + " of at least "
            + bytes
            + " bytes exceeds the limit of "
            + maxEventBytes
            + " bytes");
  }
}
