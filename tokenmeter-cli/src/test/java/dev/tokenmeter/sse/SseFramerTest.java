package dev.tokenmeter.sse;

import static dev.tokenmeter.sse.SseTestSupport.utf8;
import static dev.tokenmeter.sse.SseTestSupport.whole;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.sse.SseTestSupport.View;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The WHATWG parsing rules, one by one, with hand-written expectations. */
class SseFramerTest {

  private static List<View> parse(String stream) {
    return SseTestSupport.views(whole(utf8(stream)));
  }

  private static View msg(String data) {
    return new View("message", "", data, -1);
  }

  @Test
  void joinsMultipleDataLinesWithLf() {
    // The spec's stock-ticker example.
    assertThat(parse("data: YHOO\ndata: +2\ndata: 10\n\n")).containsExactly(msg("YHOO\n+2\n10"));
  }

  @Test
  void specExampleWithCommentsIdsAndSpaces() {
    String stream =
        ": test stream\n\n"
            + "data: first event\n"
            + "id: 1\n\n"
            + "data:second event\n"
            + "id\n\n"
            + "data:  third event\n\n";
    assertThat(parse(stream))
        .containsExactly(
            new View("message", "1", "first event", -1),
            new View("message", "", "second event", -1),
            new View("message", "", " third event", -1));
  }

  @Test
  void dataWithoutColonIsAnEmptyValueAndStillDispatches() {
    // Spec example: two events ("" and "\n"); the final "data:" has no blank line after it.
    List<SseEvent> events = new ArrayList<>();
    SseFramer framer = new SseFramer(events::add);
    byte[] b = utf8("data\n\ndata\ndata\n\ndata:");
    framer.feed(b, 0, b.length);
    assertThat(SseTestSupport.views(events)).containsExactly(msg(""), msg("\n"));
    assertThat(framer.hasPartialEvent()).isTrue();
  }

  @Test
  void oneLeadingSpaceIsRemovedFromTheValue() {
    assertThat(parse("data:test\n\ndata: test\n\ndata:  test\n\n"))
        .containsExactly(msg("test"), msg("test"), msg(" test"));
  }

  @Test
  void eventTypeAppliesToOneEventAndResetsEvenWithoutData() {
    String stream =
        "event: add\n"
            + "data: 1\n\n"
            + "event: remove\n\n"
            + "data: 2\n\n"
            + "event:\n"
            + "data: 3\n\n"
            + "event: a:b\n"
            + "data: 4\n\n";
    assertThat(parse(stream))
        .containsExactly(
            new View("add", "", "1", -1), msg("2"), msg("3"), new View("a:b", "", "4", -1));
  }

  @Test
  void lastEventIdPersistsIgnoresNulAndResetsOnEmptyId() {
    String stream = "id: 7\ndata: a\n\ndata: b\n\nid: 8\u0000x\ndata: c\n\nid:\ndata: d\n\n";
    assertThat(parse(stream))
        .containsExactly(
            new View("message", "7", "a", -1),
            new View("message", "7", "b", -1),
            new View("message", "7", "c", -1),
            new View("message", "", "d", -1));
  }

  @Test
  void retryCountsOnlyWhenAllAsciiDigits() {
    List<SseEvent> events = new ArrayList<>();
    SseFramer framer = new SseFramer(events::add);
    byte[] b =
        utf8("retry: 1500\ndata: a\n\nretry: 15x\ndata: b\n\nretry:\ndata: c\n\nretry: 20\n\n");
    framer.feed(b, 0, b.length);
    assertThat(SseTestSupport.views(events))
        .containsExactly(new View("message", "", "a", 1500), msg("b"), msg("c"));
    assertThat(framer.reconnectionTimeMillis()).isEqualTo(20); // kept though nothing dispatched
  }

  @Test
  void retrySaturatesInsteadOfOverflowing() {
    assertThat(parse("retry: 99999999999999999999999\ndata: a\n\n"))
        .containsExactly(new View("message", "", "a", Long.MAX_VALUE));
  }

  @Test
  void unknownAndMisspelledFieldsAreIgnored() {
    assertThat(parse("foo: bar\nData: x\ndata : y\n\ndata: z\n\n")).containsExactly(msg("z"));
  }

  @Test
  void allThreeLineEndingsWork() {
    assertThat(parse("data: a\r\ndata: b\r\n\r\ndata: c\rdata: d\r\rdata: e\ndata: f\n\n"))
        .containsExactly(msg("a\nb"), msg("c\nd"), msg("e\nf"));
  }

  @Test
  void crAtTheEndOfOneFeedAndLfAtTheStartOfTheNextAreOneLineEnding() {
    List<SseEvent> events = new ArrayList<>();
    SseFramer framer = new SseFramer(events::add);
    for (String piece : new String[] {"data: a\r", "\ndata: b\r", "\n\r", "\n"}) {
      byte[] b = utf8(piece);
      framer.feed(b, 0, b.length);
    }
    // Had the LFs counted as line endings of their own, "a" would have been dispatched alone.
    assertThat(SseTestSupport.views(events)).containsExactly(msg("a\nb"));
    assertThat(framer.hasPartialEvent()).isFalse();
  }

  @Test
  void emptyFeedsDoNotForgetAPendingCr() {
    List<SseEvent> events = new ArrayList<>();
    SseFramer framer = new SseFramer(events::add);
    framer.feed(utf8("data: a\r"), 0, 8);
    framer.feed(new byte[0], 0, 0);
    framer.feed(utf8("\n\n"), 0, 2);
    assertThat(SseTestSupport.views(events)).containsExactly(msg("a"));
  }

  @Test
  void leadingBomIsSkippedOnceOnly() {
    assertThat(parse("\uFEFFdata: a\n\n")).containsExactly(msg("a"));
    // A second BOM belongs to the first line, whose field name is then "\uFEFFdata": ignored.
    assertThat(parse("\uFEFF\uFEFFdata: a\n\ndata: b\n\n")).containsExactly(msg("b"));
    // A BOM later in the stream is content.
    assertThat(parse("data: \uFEFFa\n\n")).containsExactly(msg("\uFEFFa"));
  }

  @Test
  void aPartialBomFollowedByOtherBytesIsContent() {
    byte[] b = {(byte) 0xEF, (byte) 0xBB, 'x', '\n', 'd', 'a', 't', 'a', ':', 'y', '\n', '\n'};
    assertThat(SseTestSupport.views(whole(b))).containsExactly(msg("y"));
  }

  @Test
  void decodesUtf8ValuesAndKeepsRawBytes() {
    String text = "日本語 👩‍💻 é";
    List<SseEvent> events = whole(utf8("event: 種類\nid: ☃\ndata: " + text + "\n\n"));
    assertThat(SseTestSupport.views(events)).containsExactly(new View("種類", "☃", text, -1));
    assertThat(events.get(0).dataBytes()).isEqualTo(utf8(text));
    assertThat(events.get(0).dataLength()).isEqualTo(utf8(text).length);
  }

  @Test
  void hasPartialEventTellsWhetherTheStreamEndedMidEvent() {
    assertThat(partialAfter("data: x\n\n")).isFalse();
    assertThat(partialAfter("data: x\n")).isTrue();
    assertThat(partialAfter("data: x")).isTrue();
    assertThat(partialAfter("data: x\r")).isTrue();
    assertThat(partialAfter("data: x\n\n: keep-alive\n")).isFalse();
    assertThat(partialAfter("data: x\n\n:")).isTrue(); // an unterminated line is buffered bytes
    assertThat(partialAfter("id: 3\n")).isTrue();
    assertThat(partialAfter("event: e\n\n")).isFalse();
    assertThat(partialAfter("")).isFalse();
    byte[] halfBom = {(byte) 0xEF, (byte) 0xBB};
    SseFramer framer = new SseFramer(e -> {});
    framer.feed(halfBom, 0, 2);
    assertThat(framer.hasPartialEvent()).isTrue();
  }

  private static boolean partialAfter(String stream) {
    SseFramer framer = new SseFramer(e -> {});
    byte[] b = utf8(stream);
    framer.feed(b, 0, b.length);
    return framer.hasPartialEvent();
  }

  @Test
  void maxSizeGuardsLinesAndJoinedData() {
    List<SseEvent> events = new ArrayList<>();
    SseFramer framer = new SseFramer(events::add, 16);
    byte[] ok = utf8("data: 0123456789\n\n"); // a 16-byte line
    framer.feed(ok, 0, ok.length);
    assertThat(events).hasSize(1);

    byte[] longLine = utf8("data: 0123456789A\n\n");
    assertThatThrownBy(() -> framer.feed(longLine, 0, longLine.length))
        .isInstanceOf(SseException.class)
        .hasMessageContaining("line")
        .hasMessageContaining("17 bytes")
        .hasMessageContaining("limit of 16 bytes");

    framer.reset();
    byte[] twoLines = utf8("data: 01234567\ndata: 01234567\n\n"); // joined: 8 + 1 + 8 = 17
    assertThatThrownBy(() -> framer.feed(twoLines, 0, twoLines.length))
        .isInstanceOf(SseException.class)
        .hasMessageContaining("event data of at least 17 bytes exceeds the limit of 16 bytes");

    // A line arriving one byte per feed is caught while buffering, before it is complete.
    framer.reset();
    byte[] endless = new byte[1];
    endless[0] = 'x';
    assertThatThrownBy(
            () -> {
              for (int i = 0; i < 1000; i++) {
                framer.feed(endless, 0, 1);
              }
            })
        .isInstanceOf(SseException.class)
        .hasMessageContaining("limit of 16 bytes");

    framer.reset();
    framer.feed(ok, 0, ok.length);
    assertThat(events).hasSize(2);
  }

  @Test
  void resetForgetsTheLastEventIdAndPartialState() {
    List<SseEvent> events = new ArrayList<>();
    SseFramer framer = new SseFramer(events::add);
    byte[] first = utf8("id: 9\ndata: a\n\ndata: partial");
    framer.feed(first, 0, first.length);
    framer.reset();
    assertThat(framer.hasPartialEvent()).isFalse();
    assertThat(framer.lastEventId()).isEmpty();
    byte[] second = utf8("\uFEFFdata: b\n\n");
    framer.feed(second, 0, second.length);
    assertThat(SseTestSupport.views(events))
        .containsExactly(new View("message", "9", "a", -1), msg("b"));
  }

  @Test
  void feedsHeapDirectAndOffsetByteBuffersAlike() {
    byte[] stream = utf8("data: héllo\n\nevent: x\ndata: w\n\n");
    List<SseEvent> expected = whole(stream);
    for (ByteBuffer buffer :
        new ByteBuffer[] {
          ByteBuffer.wrap(stream),
          ByteBuffer.allocateDirect(stream.length).put(stream).flip(),
          ByteBuffer.wrap(stream).asReadOnlyBuffer(),
          ByteBuffer.wrap(concat(utf8("junk"), stream), 4, stream.length).slice()
        }) {
      List<SseEvent> events = new ArrayList<>();
      new SseFramer(events::add).feed(buffer);
      assertThat(events).isEqualTo(expected);
      assertThat(buffer.hasRemaining()).isFalse();
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void eventsOwnTheirDataEvenWhenTheInputArrayIsReused() {
    byte[] input = utf8("data: first\n\n");
    List<SseEvent> events = new ArrayList<>();
    SseFramer framer = new SseFramer(events::add);
    framer.feed(input, 0, input.length);
    input[6] = 'X';
    assertThat(events.get(0).data()).isEqualTo("first");
  }
}
