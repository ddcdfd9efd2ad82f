package dev.tokenmeter.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class ChunkTokensTest {

  @Test
  void oneTokenPerChunkWhenCountsMatch() {
    assertThat(ChunkTokens.distribute(3, new int[] {5, 1, 9}, 3)).containsExactly(1, 1, 1);
  }

  @Test
  void proportionalToCharsWhenExact() {
    // 8 tokens over 2 + 4 + 2 chars: shares 2, 4, 2 with no remainder.
    assertThat(ChunkTokens.distribute(8, new int[] {2, 4, 2}, 3)).containsExactly(2, 4, 2);
  }

  @Test
  void leftoverGoesToLargestRemainders() {
    // 5 tokens over 1 + 3 + 2 = 6 chars: shares 5/6, 15/6, 10/6 -> floors 0, 2, 1 (3 tokens),
    // remainders 5, 3, 4 (sixths): the 2 left go to chunk 0 (5) and chunk 2 (4), not chunk 1.
    assertThat(ChunkTokens.distribute(5, new int[] {1, 3, 2}, 3)).containsExactly(1, 2, 2);
  }

  @Test
  void tiesGoToTheEarlierChunk() {
    // 5 tokens over three 1-char chunks: 5/3 each, floors 1, equal remainders 2/3: first two win.
    assertThat(ChunkTokens.distribute(5, new int[] {1, 1, 1}, 3)).containsExactly(2, 2, 1);
    // 2 tokens over four chunks: 0 each, equal remainders: first two win.
    assertThat(ChunkTokens.distribute(2, new int[] {1, 1, 1, 1}, 4)).containsExactly(1, 1, 0, 0);
  }

  @Test
  void onlyTheFirstCountChunksAreUsed() {
    assertThat(ChunkTokens.distribute(4, new int[] {1, 1, 99, 99}, 2)).containsExactly(2, 2);
  }

  @Test
  void randomInputsSumExactlyAndStayWithinFloorAndCeiling() {
    Random random = new Random(7);
    for (int round = 0; round < 2000; round++) {
      int count = 1 + random.nextInt(40);
      int[] chars = new int[count];
      long total = 0;
      for (int i = 0; i < count; i++) {
        chars[i] = 1 + random.nextInt(30);
        total += chars[i];
      }
      int n = random.nextInt(4) == 0 ? count : random.nextInt(200);
      int[] k = ChunkTokens.distribute(n, chars, count);
      long sum = 0;
      for (int i = 0; i < count; i++) {
        if (n == count) {
          assertThat(k[i]).isEqualTo(1); // the one-token-per-chunk rule wins over chars
        } else {
          double share = (double) n * chars[i] / total;
          assertThat((double) k[i]).isBetween(Math.floor(share) - 1e-9, Math.ceil(share) + 1e-9);
        }
        sum += k[i];
      }
      assertThat(sum).isEqualTo(n);
    }
  }
}
