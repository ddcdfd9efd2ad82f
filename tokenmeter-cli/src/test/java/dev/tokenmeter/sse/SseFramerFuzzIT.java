package dev.tokenmeter.sse;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tokenmeter.testkit.FuzzRuns;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The SSE framer under a coverage-guided fuzzer (Jazzer): any bytes, split anywhere, with a small
 * event limit. The only exception allowed out is {@link SseException} (a line or an event over the
 * limit); the framer's memory stays within the limit; the same bytes split differently give the
 * same events up to the first error. Inputs in SseFramerFuzzITInputs/ (the stream transcripts of
 * src/test/resources/transcripts, and crashes found) are replayed on every build;
 * docs/RELIABILITY.md says how to fuzz. An endless line or event stops at the framer's limit.
 */
@ExtendWith(FuzzRuns.class)
class SseFramerFuzzIT {
  private static final int LIMIT = 4096;

  @FuzzTest(maxDuration = "5s")
  void framer(FuzzedDataProvider in) {
    FuzzRuns.one(SseFramerFuzzIT.class);
    int split = in.consumeInt(1, 64);
    byte[] bytes = in.consumeRemainingAsBytes();
    List<String> whole = events(bytes, bytes.length);
    List<String> pieces = events(bytes, split);
    assertThat(pieces).isEqualTo(whole);
    assertThat(lentEvents(bytes, split)).isEqualTo(whole);
  }

  @Test
  void anEndlessLineStopsAtTheLimit() {
    byte[] piece = new byte[64 << 10];
    Arrays.fill(piece, (byte) 'x');
    assertThat(fedUntilError(piece)).isBetween((long) SseFramer.DEFAULT_MAX_EVENT_BYTES,
        (long) SseFramer.DEFAULT_MAX_EVENT_BYTES + piece.length);
  }

  @Test
  void anEndlessEventStopsAtTheLimit() {
    // 1 KiB data lines, never a blank line: each line is short, the event's joined data is not.
    byte[] line = ("data: " + "y".repeat(1017) + "\n").getBytes(StandardCharsets.US_ASCII);
    byte[] piece = new byte[64 * line.length];
    for (int i = 0; i < 64; i++) {
      System.arraycopy(line, 0, piece, i * line.length, line.length);
    }
    assertThat(fedUntilError(piece)).isBetween((long) SseFramer.DEFAULT_MAX_EVENT_BYTES,
        (long) SseFramer.DEFAULT_MAX_EVENT_BYTES + 2L * piece.length);
  }

  /** Bytes fed (up to 64 MiB, {@code piece} after {@code piece}) when the framer threw. */
  private static long fedUntilError(byte[] piece) {
    SseFramer f = new SseFramer(e -> {
      throw new AssertionError("no event expected");
    });
    long fed = 0;
    try {
      while (fed < 4L * SseFramer.DEFAULT_MAX_EVENT_BYTES) {
        f.feed(piece, 0, piece.length);
        fed += piece.length;
      }
    } catch (SseException e) {
      assertThat(e.getMessage()).contains("exceeds the limit");
      return fed + piece.length;
    }
    throw new AssertionError("no error after " + fed + " bytes");
  }

  /** As {@link #events} from a lending framer (the client's), each event read while lent. */
  private static List<String> lentEvents(byte[] bytes, int step) {
    SseTestSupport.Lent lent = new SseTestSupport.Lent(LIMIT);
    boolean error = false;
    try {
      for (int i = 0; i < bytes.length; i += Math.max(1, step)) {
        lent.framer.feed(bytes, i, Math.min(Math.max(1, step), bytes.length - i));
      }
    } catch (SseException e) {
      error = true;
    }
    List<String> out = new ArrayList<>();
    lent.events.forEach(ev -> out.add(ev.type() + "|" + ev.id() + "|" + ev.data()));
    if (error) {
      out.add("error");
    }
    return out;
  }

  /** The events of {@code bytes} fed {@code step} bytes at a time; "error" ends the list. */
  private static List<String> events(byte[] bytes, int step) {
    List<String> out = new ArrayList<>();
    SseFramer f = new SseFramer(e -> {
      assertThat(e.data().length()).isLessThanOrEqualTo(LIMIT);
      out.add(e.type() + "|" + e.id() + "|" + e.data());
    }, LIMIT);
    try {
      for (int i = 0; i < bytes.length; i += Math.max(1, step)) {
        f.feed(bytes, i, Math.min(Math.max(1, step), bytes.length - i));
      }
    } catch (SseException e) {
      out.add("error");
    }
    return out;
  }
}
