package dev.tokenmeter.sse;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Helpers for SSE tests: feeding strategies and an independent, literal reference parser. */
final class SseTestSupport {

  private SseTestSupport() {}

  /** What a test compares: the decoded view of an event (bytes may differ for invalid UTF-8). */
  record View(String type, String id, String data, long retryMillis) {
    static View of(SseEvent e) {
      return new View(e.type(), e.id(), e.data(), e.retryMillis());
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The events of {@code stream} fed whole. A lending framer fed the same way must see the same
   * types, data bytes and IDs (checked here, so every test that uses this checks both).
   */
  static List<SseEvent> whole(byte[] stream) {
    List<SseEvent> events = new ArrayList<>();
    new SseFramer(events::add).feed(stream, 0, stream.length);
    Lent lent = new Lent();
    lent.framer.feed(stream, 0, stream.length);
    lent.assertSame(events);
    return events;
  }

  /**
   * A lending framer that copies each lent event while it is lent, to compare with the events a
   * copying framer makes.
   */
  static final class Lent {
    final List<SseEvent> events = new ArrayList<>();
    final SseFramer framer;

    Lent() {
      this(SseFramer.DEFAULT_MAX_EVENT_BYTES);
    }

    Lent(int limit) {
      SseFramer[] self = new SseFramer[1];
      framer =
          SseFramer.lending(
              (type, data, offset, length) ->
                  events.add(
                      new SseEvent(
                          type,
                          self[0].lastEventId(),
                          Arrays.copyOfRange(data, offset, offset + length),
                          -1)),
              limit);
      self[0] = framer;
    }

    /** The same events as {@code copied}, but for the retry field, which a lending framer does not lend. */
    void assertSame(List<SseEvent> copied) {
      List<SseEvent> expected = new ArrayList<>();
      for (SseEvent e : copied) {
        expected.add(new SseEvent(e.type(), e.id(), e.dataBytes(), -1));
      }
      if (!expected.equals(events)) {
        throw new AssertionError("a lending framer saw " + events + ", a copying one " + expected);
      }
    }
  }

  /**
   * Feeds {@code stream} cut at the given ascending offsets, each piece copied into one reused
   * array that is overwritten with junk after each feed (as a network buffer is reused), at a
   * non-zero offset, so a framer that kept a reference to the input would be caught.
   */
  static List<SseEvent> split(byte[] stream, int... cuts) {
    List<SseEvent> events = new ArrayList<>();
    SseFramer framer = new SseFramer(events::add);
    feedSplit(framer, stream, cuts);
    Lent lent = new Lent();
    feedSplit(lent.framer, stream, cuts);
    lent.assertSame(events);
    return events;
  }

  static void feedSplit(SseFramer framer, byte[] stream, int... cuts) {
    byte[] reused = new byte[stream.length + 16];
    int from = 0;
    for (int k = 0; k <= cuts.length; k++) {
      int to = k < cuts.length ? cuts[k] : stream.length;
      System.arraycopy(stream, from, reused, 3, to - from);
      framer.feed(reused, 3, to - from);
      Arrays.fill(reused, (byte) '\n');
      from = to;
    }
  }

  /**
   * The WHATWG algorithm written as literally as possible over a decoded string, for comparison:
   * decode the whole stream (dropping one leading BOM), split complete lines, apply the field
   * rules.
   */
  static List<View> reference(byte[] stream) {
    String s = new String(stream, StandardCharsets.UTF_8);
    if (s.startsWith("\uFEFF")) {
      s = s.substring(1);
    }
    List<View> events = new ArrayList<>();
    StringBuilder data = new StringBuilder();
    String type = "";
    String lastId = "";
    long retry = -1;
    int i = 0;
    while (true) {
      int eol = i;
      while (eol < s.length() && s.charAt(eol) != '\n' && s.charAt(eol) != '\r') {
        eol++;
      }
      if (eol == s.length()) {
        return events; // an unterminated last line is never processed
      }
      String line = s.substring(i, eol);
      i =
          s.charAt(eol) == '\r' && eol + 1 < s.length() && s.charAt(eol + 1) == '\n'
              ? eol + 2
              : eol + 1;
      if (line.isEmpty()) {
        if (data.isEmpty()) {
          type = "";
          retry = -1;
          continue;
        }
        data.setLength(data.length() - 1);
        events.add(new View(type.isEmpty() ? "message" : type, lastId, data.toString(), retry));
        data.setLength(0);
        type = "";
        retry = -1;
        continue;
      }
      if (line.startsWith(":")) {
        continue;
      }
      int colon = line.indexOf(':');
      String name = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1);
      if (value.startsWith(" ")) {
        value = value.substring(1);
      }
      switch (name) {
        case "data" -> data.append(value).append('\n');
        case "event" -> type = value;
        case "id" -> lastId = value.indexOf('\0') >= 0 ? lastId : value;
        case "retry" -> {
          if (!value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            retry = new BigInteger(value).min(BigInteger.valueOf(Long.MAX_VALUE)).longValue();
          }
        }
        default -> {}
      }
    }
  }

  static List<View> views(List<SseEvent> events) {
    return events.stream().map(View::of).toList();
  }
}
