package dev.tokenmeter.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ChunkLogTest {
  private static final long T0 = 7_512_345_678_901L; // a System.nanoTime()-sized start

  @Test
  void readsBackEveryChunkExactlyInOrder() {
    SplittableRandom rnd = new SplittableRandom(13);
    for (int round = 0; round < 200; round++) {
      int n = rnd.nextInt(0, 600);
      long[] nanos = new long[n];
      int[] chars = new int[n];
      TextKind[] kinds = new TextKind[n];
      ChunkLog log = new ChunkLog();
      long t = rnd.nextBoolean() ? T0 : rnd.nextLong();
      for (int i = 0; i < n; i++) {
        t += switch (rnd.nextInt(5)) {
          case 0 -> 0; // several chunks in one read share its stamp
          case 1 -> rnd.nextLong(1, 200_000); // zero delay
          case 2 -> rnd.nextLong(15_000_000, 25_000_000); // paced 20 ms
          case 3 -> -rnd.nextLong(1, 1_000_000); // a clock that went back
          default -> rnd.nextLong(Long.MIN_VALUE / 4, Long.MAX_VALUE / 4); // anything
        };
        nanos[i] = t;
        chars[i] = rnd.nextInt(8) == 0 ? rnd.nextInt(0, Integer.MAX_VALUE) : rnd.nextInt(0, 40);
        kinds[i] = TextKind.values()[rnd.nextInt(TextKind.values().length)];
        log.append(nanos[i], chars[i], kinds[i]);
      }
      assertThat(log.count()).isEqualTo(n);
      ChunkLog.Cursor c = log.cursor();
      assertThat(c.index()).isEqualTo(-1);
      for (int i = 0; i < n; i++) {
        assertThat(c.next()).isTrue();
        assertThat(c.index()).isEqualTo(i);
        assertThat(c.nanos()).isEqualTo(nanos[i]);
        assertThat(c.chars()).isEqualTo(chars[i]);
        assertThat(c.kind()).isEqualTo(kinds[i]);
      }
      assertThat(c.next()).isFalse();
      assertThat(c.next()).isFalse();
      if (n > 0) {
        int i = rnd.nextInt(n);
        assertThat(log.nanos(i)).isEqualTo(nanos[i]);
        assertThat(log.chars(i)).isEqualTo(chars[i]);
        assertThat(log.kind(i)).isEqualTo(kinds[i]);
      }
    }
  }

  /** Entries of the largest size, across many blocks: none is split or lost at a block's end. */
  @Test
  void theLargestEntriesReadBackAcrossBlocks() {
    ChunkLog log = new ChunkLog();
    for (int i = 0; i < 10_000; i++) {
      log.append(i % 2 == 0 ? Long.MAX_VALUE / 2 : Long.MIN_VALUE / 2, Integer.MAX_VALUE - i, TextKind.CONTENT);
    }
    ChunkLog.Cursor c = log.cursor();
    for (int i = 0; i < 10_000; i++) {
      assertThat(c.next()).isTrue();
      if (c.nanos() != (i % 2 == 0 ? Long.MAX_VALUE / 2 : Long.MIN_VALUE / 2) || c.chars() != Integer.MAX_VALUE - i) {
        throw new AssertionError("chunk " + i + " read back as " + c.nanos() + ", " + c.chars());
      }
    }
    assertThat(c.next()).isFalse();
  }

  @Test
  void cursorsAreIndependentAndSeeOnlyWhatWasAppendedBeforeThem() {
    ChunkLog log = new ChunkLog();
    log.append(T0, 3, TextKind.REASONING);
    ChunkLog.Cursor a = log.cursor();
    assertThat(a.next()).isTrue();
    log.append(T0 + 5, 4, TextKind.CONTENT);
    ChunkLog.Cursor b = log.cursor();
    assertThat(b.next()).isTrue();
    assertThat(b.kind()).isEqualTo(TextKind.REASONING);
    assertThat(a.next()).isTrue();
    assertThat(a.nanos()).isEqualTo(T0 + 5);
    assertThat(a.kind()).isEqualTo(TextKind.CONTENT);
    assertThat(b.next()).isTrue();
    assertThat(b.chars()).isEqualTo(4);
  }

  /** The reason it exists: a paced stream's chunk costs 5 bytes, not the 13 of three arrays. */
  @Test
  void aPacedChunkTakesFiveBytesAndAZeroDelayOneFour() {
    ChunkLog paced = new ChunkLog();
    ChunkLog zero = new ChunkLog();
    for (int i = 0; i < 2048; i++) {
      paced.append(T0 + 50_000_000L + 20_000_000L * i, 5, TextKind.CONTENT);
      zero.append(T0 + 40_000L * i, 5, TextKind.CONTENT);
    }
    // The first chunk's time is stored whole (7 bytes for T0 + 50 ms), every later one as a gap.
    assertThat(paced.sizeBytes()).isEqualTo(7 + 1 + 2047 * 5);
    assertThat(zero.sizeBytes()).isLessThanOrEqualTo(7 + 1 + 2047 * 4);
  }

  @Test
  void refusesWhatItCannotHold() {
    ChunkLog log = new ChunkLog();
    assertThatThrownBy(() -> log.append(T0, -1, TextKind.CONTENT)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> log.nanos(0)).isInstanceOf(IndexOutOfBoundsException.class);
    log.append(T0, 1, TextKind.TOOL_CALL);
    assertThatThrownBy(() -> log.chars(1)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> log.kind(-1)).isInstanceOf(IndexOutOfBoundsException.class);
  }
}
