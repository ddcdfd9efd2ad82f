package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LineFramerTest {

  private static List<String> lines(byte[] bytes, int[] cuts, LineFramer[] out) {
    List<String> lines = new ArrayList<>();
    LineFramer f = new LineFramer((b, off, len) -> lines.add(new String(b, off, len, StandardCharsets.UTF_8)), 64);
    int from = 0;
    for (int k = 0; k <= cuts.length; k++) {
      int to = k < cuts.length ? cuts[k] : bytes.length;
      f.feed(bytes, from, to - from);
      from = to;
    }
    out[0] = f;
    return lines;
  }

  @Test
  void linesAreTheSameWhereverTheBytesAreSplitMidLineOrMidCharacter() {
    byte[] bytes = "{\"a\":\"é🌍\"}\r\n\n  \n{\"b\":\"naïve\"}\n{\"c\":1}\n".getBytes(StandardCharsets.UTF_8);
    LineFramer[] f = new LineFramer[1];
    List<String> whole = lines(bytes, new int[0], f);
    assertThat(whole).containsExactly("{\"a\":\"é🌍\"}", "{\"b\":\"naïve\"}", "{\"c\":1}");
    Random random = new Random(7);
    for (int round = 0; round < 300; round++) {
      int[] cuts = random.ints(random.nextInt(bytes.length), 0, bytes.length + 1).sorted().toArray();
      assertThat(lines(bytes, cuts, f)).as("cuts %s", cuts).isEqualTo(whole);
      assertThat(f[0].hasPartialLine()).isFalse();
    }
  }

  @Test
  void aBodyCutMidLineIsPartialAndTrailingBlanksAreNot() {
    LineFramer[] f = new LineFramer[1];
    assertThat(lines("{\"a\":1}\n{\"b\"".getBytes(StandardCharsets.UTF_8), new int[] {3}, f)).containsExactly("{\"a\":1}");
    assertThat(f[0].hasPartialLine()).isTrue();
    lines("{\"a\":1}\n \r".getBytes(StandardCharsets.UTF_8), new int[0], f);
    assertThat(f[0].hasPartialLine()).isFalse();
  }

  @Test
  void aLineOverTheLimitIsAProtocolErrorWholeOrSplit() {
    byte[] longLine = ("{\"x\":\"" + "y".repeat(80) + "\"}\n").getBytes(StandardCharsets.UTF_8);
    LineFramer[] f = new LineFramer[1];
    assertThatThrownBy(() -> lines(longLine, new int[0], f))
        .isInstanceOf(ProtocolException.class).hasMessageStartingWith("a line longer than 64 bytes");
    assertThatThrownBy(() -> lines(longLine, new int[] {10, 40, 70}, f))
        .isInstanceOf(ProtocolException.class).hasMessageStartingWith("a line longer than 64 bytes");
  }
}
