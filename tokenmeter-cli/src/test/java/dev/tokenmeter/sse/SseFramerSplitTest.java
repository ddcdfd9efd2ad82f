package dev.tokenmeter.sse;

import static dev.tokenmeter.sse.SseTestSupport.reference;
import static dev.tokenmeter.sse.SseTestSupport.split;
import static dev.tokenmeter.sse.SseTestSupport.utf8;
import static dev.tokenmeter.sse.SseTestSupport.views;
import static dev.tokenmeter.sse.SseTestSupport.whole;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The framer must not care how the network cut the stream: every chunking gives the events of the
 * whole stream, which in turn match a literal reference implementation of the spec.
 */
class SseFramerSplitTest {

  static final String EMOJI_ZWJ = "👩‍👩‍👧‍👦"; // 4 code points joined by 3 ZWJs, 25 bytes
  static final String CJK = "你好，世界";

  static Stream<byte[]> streams() {
    return Stream.of(
        // vLLM-like chat chunks with multi-byte content, then [DONE].
        utf8(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                + CJK
                + "\"}}]}\n\n"
                + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                + EMOJI_ZWJ
                + "\"}}]}\n\n"
                + "data: [DONE]\n\n"),
        // CRLF everywhere, comments, event/id/retry, an ignored field.
        utf8(
            ": keep-alive\r\nretry: 3000\r\nevent: token\r\nid: 41\r\ndata: a\r\n\r\n"
                + "foo: bar\r\nid: 42\r\ndata: é\r\ndata:\r\n\r\n: bye\r\n"),
        // Lone CRs, multi-line data, data without colon, empty event.
        utf8("data: line one\rdata: line two\r\rdata\r\revent: x\r\rdata:" + CJK + "\r\r"),
        // BOM, mixed endings, NUL in id (ignored), ZWJ emoji split across data lines.
        utf8(
            "\uFEFFid: 1\ndata: "
                + EMOJI_ZWJ
                + "\r\ndata:  two spaces\r\rid: bad\u0000id\nevent: e\ndata: x\n\n"
                + "data: tail\r\n\r\n"),
        // Ends mid-event: the last event must never be dispatched.
        utf8("data: done\n\ndata: never dispatched " + CJK));
  }

  @ParameterizedTest
  @MethodSource("streams")
  void wholeStreamMatchesTheReferenceParser(byte[] stream) {
    assertThat(views(whole(stream))).isEqualTo(reference(stream)).isNotEmpty();
  }

  @ParameterizedTest
  @MethodSource("streams")
  void everySingleCutGivesTheSameEvents(byte[] stream) {
    List<SseEvent> expected = whole(stream);
    boolean partial = partialAfterWhole(stream);
    for (int cut = 0; cut <= stream.length; cut++) {
      List<SseEvent> events = new ArrayList<>();
      SseFramer framer = new SseFramer(events::add);
      SseTestSupport.feedSplit(framer, stream, cut);
      assertThat(events).as("cut at %d", cut).isEqualTo(expected);
      assertThat(framer.hasPartialEvent()).as("partial, cut at %d", cut).isEqualTo(partial);
    }
  }

  @ParameterizedTest
  @MethodSource("streams")
  void oneByteAtATimeGivesTheSameEvents(byte[] stream) {
    int[] cuts = new int[stream.length - 1];
    for (int i = 0; i < cuts.length; i++) {
      cuts[i] = i + 1;
    }
    assertThat(split(stream, cuts)).isEqualTo(whole(stream));
  }

  @Test
  void everyPairOfCutsInAShortStreamGivesTheSameEvents() {
    byte[] stream = utf8("\uFEFFdata: a" + EMOJI_ZWJ + "\r\nid: 5\rdata:\n\r\n: c\n\n");
    List<SseEvent> expected = whole(stream);
    assertThat(views(expected)).isEqualTo(reference(stream)).hasSize(1);
    for (int a = 0; a <= stream.length; a++) {
      for (int b = a; b <= stream.length; b++) {
        assertThat(split(stream, a, b)).as("cuts %d, %d", a, b).isEqualTo(expected);
      }
    }
  }

  @Test
  void randomChunkingsGiveTheSameEvents() {
    Random random = new Random(20240611);
    List<byte[]> all = streams().toList();
    for (int round = 0; round < 5000; round++) {
      byte[] stream = all.get(random.nextInt(all.size()));
      int[] cuts = random.ints(random.nextInt(12), 0, stream.length + 1).sorted().toArray();
      assertThat(split(stream, cuts)).as("round %d", round).isEqualTo(whole(stream));
    }
  }

  @Test
  void garbageMatchesTheReferenceAndSurvivesAnyChunking() {
    Random random = new Random(7);
    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () -> {
          for (int round = 0; round < 3000; round++) {
            byte[] stream = garbage(random, random.nextInt(300));
            List<SseEvent> expected = whole(stream);
            assertThat(views(expected)).as("round %d", round).isEqualTo(reference(stream));
            int[] cuts = random.ints(random.nextInt(8), 0, stream.length + 1).sorted().toArray();
            assertThat(split(stream, cuts)).as("round %d", round).isEqualTo(expected);
          }
        });
  }

  @Test
  void garbageUnderASmallLimitThrowsNothingButSseException() {
    Random random = new Random(11);
    List<SseEvent> events = new ArrayList<>();
    SseFramer framer = new SseFramer(events::add, 24);
    int thrown = 0;
    for (int round = 0; round < 3000; round++) {
      byte[] stream = garbage(random, random.nextInt(400));
      int[] cuts = random.ints(random.nextInt(8), 0, stream.length + 1).sorted().toArray();
      try {
        SseTestSupport.feedSplit(framer, stream, cuts);
      } catch (SseException e) {
        thrown++;
        assertThat(e).hasMessageContaining("limit of 24 bytes");
        framer.reset();
      }
    }
    // The alphabet makes long lines likely: the guard must actually have fired, and events passed.
    assertThat(thrown).isGreaterThan(100);
    assertThat(events).hasSizeGreaterThan(100);
    assertThat(events).allSatisfy(e -> assertThat(e.dataLength()).isLessThanOrEqualTo(24));
  }

  /** Random bytes biased towards SSE syntax so that fields and events really occur. */
  static byte[] garbage(Random random, int tokens) {
    String[] alphabet = {
      "data",
      "data:",
      "data: ",
      "event:",
      "id:",
      "id: ",
      "retry:",
      "retry: 12",
      ":",
      " ",
      "\r",
      "\n",
      "\r\n",
      "\n\n",
      "x",
      "7",
      "\u0000",
      "é",
      EMOJI_ZWJ,
      CJK,
      "\uFEFF"
    };
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < tokens; i++) {
      if (random.nextInt(10) == 0) {
        out.write(random.nextInt(256)); // any byte, invalid UTF-8 included
      } else {
        out.writeBytes(utf8(alphabet[random.nextInt(alphabet.length)]));
      }
    }
    return out.toByteArray();
  }

  private static boolean partialAfterWhole(byte[] stream) {
    SseFramer framer = new SseFramer(e -> {});
    framer.feed(stream, 0, stream.length);
    return framer.hasPartialEvent();
  }
}
