package dev.tokenmeter.sse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * One dispatched server-sent event: immutable and safe to share between threads.
 *
 * <p>The data is held as the raw UTF-8 bytes the server sent (lines joined with {@code '\n'});
 * {@link #data()} decodes them on first use and caches the string, so a consumer that parses JSON
 * straight from {@link #dataBytes()} never pays for a {@code String}.
 *
 * <p><b>Ownership of {@link #dataBytes()}</b>: the array is this event's own (the framer copied it
 * out of the input exactly once), exactly {@link #dataLength()} bytes long, and returned without a
 * copy. Callers must treat it as read-only; writing to it breaks the immutability of the event.
 */
public final class SseEvent {

  /** The type of an event that carried no (or an empty) {@code event:} field. */
  public static final String DEFAULT_TYPE = "message";

  private static final byte[] EMPTY = new byte[0];

  private final String type;
  private final String id;
  private final byte[] data;
  private final long retryMillis;
  // Lazily decoded; a benign race like String.hash: every thread computes the same value.
  private String dataString;

  SseEvent(String type, String id, byte[] data, long retryMillis) {
    this.type = type;
    this.id = id;
    this.data = data;
    this.retryMillis = retryMillis;
  }

  /**
   * An event for tests and for {@link SseWriter}.
   *
   * @param type the event type; {@code null} or empty means {@value #DEFAULT_TYPE}
   * @param data the data, never null; may contain line breaks (the writer splits them into several
   *     {@code data:} lines)
   * @param id the event id; {@code null} means none ({@code ""})
   */
  public static SseEvent of(String type, String data, String id) {
    Objects.requireNonNull(data, "data");
    SseEvent event =
        new SseEvent(
            type == null || type.isEmpty() ? DEFAULT_TYPE : type,
            id == null ? "" : id,
            data.isEmpty() ? EMPTY : data.getBytes(StandardCharsets.UTF_8),
            -1);
    event.dataString = data;
    return event;
  }

  /** Like {@link #of(String, String, String)} with a {@code retry:} value in milliseconds. */
  public static SseEvent of(String type, String data, String id, long retryMillis) {
    SseEvent base = of(type, data, id);
    SseEvent event = new SseEvent(base.type, base.id, base.data, Math.max(-1, retryMillis));
    event.dataString = data;
    return event;
  }

  /** The {@code event:} field, {@value #DEFAULT_TYPE} when absent or empty. */
  public String type() {
    return type;
  }

  /**
   * The last event ID of the stream when this event was dispatched: per the spec it persists across
   * events until an {@code id:} line changes it. {@code ""} when none was ever set.
   */
  public String id() {
    return id;
  }

  /** The data lines joined with {@code '\n'}, decoded as UTF-8 (malformed bytes become U+FFFD). */
  public String data() {
    String s = dataString;
    if (s == null) {
      s = data.length == 0 ? "" : new String(data, StandardCharsets.UTF_8);
      dataString = s;
    }
    return s;
  }

  /**
   * The raw UTF-8 bytes of {@link #data()}, not copied: read-only by contract, see the class
   * comment. Its length is {@link #dataLength()}.
   */
  public byte[] dataBytes() {
    return data;
  }

  /** Length of the data in bytes. */
  public int dataLength() {
    return data.length;
  }

  /** The {@code retry:} value in milliseconds if this event's block carried one, else -1. */
  public long retryMillis() {
    return retryMillis;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SseEvent e
        && retryMillis == e.retryMillis
        && type.equals(e.type)
        && id.equals(e.id)
        && Arrays.equals(data, e.data);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, id, Arrays.hashCode(data), retryMillis);
  }

  @Override
  public String toString() {
    return "SseEvent[type="
        + type
        + ", id="
        + id
        + (retryMillis >= 0 ? ", retry=" + retryMillis : "")
        + ", data="
        + data()
        + "]";
  }
}
