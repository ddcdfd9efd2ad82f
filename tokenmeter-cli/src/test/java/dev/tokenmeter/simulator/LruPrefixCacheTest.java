package dev.tokenmeter.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LruPrefixCacheTest {

  private static int[] ids(int from, int count) {
    return IntStream.range(from, from + count).toArray();
  }

  private static int[] concat(int[] a, int[] b) {
    int[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void aRepeatedPrefixIsFoundInWholeBlocksAndAtLeastOneTokenIsComputed() {
    LruPrefixCache cache = new LruPrefixCache(1_024);
    int[] first = ids(0, 100); // 6 full blocks
    assertThat(cache.lookupAndInsert(first, 100)).isZero();
    assertThat(cache.lookupAndInsert(concat(first, ids(1_000, 50)), 150)).isEqualTo(96);
    // the same prompt again: all but the last token could hit, in whole blocks (96 of 100)
    assertThat(cache.lookupAndInsert(first, 100)).isEqualTo(96);
    // exactly 6 blocks: the last block cannot hit, one token must be computed
    assertThat(cache.lookupAndInsert(ids(0, 96), 96)).isEqualTo(80);
    // a different first token shares nothing (chained hashes)
    int[] other = ids(0, 100);
    other[0] = -1;
    assertThat(cache.lookupAndInsert(other, 100)).isZero();
    assertThat(cache.lookupAndInsert(null, 100)).isZero();
  }

  @Test
  void theLeastRecentlyUsedBlocksGoFirst() {
    LruPrefixCache cache = new LruPrefixCache(64); // 4 blocks
    cache.lookupAndInsert(ids(0, 33), 33); // blocks a0 a1
    cache.lookupAndInsert(ids(500, 33), 33); // blocks b0 b1: full
    assertThat(cache.size()).isEqualTo(4);
    assertThat(cache.lookupAndInsert(ids(0, 33), 33)).isEqualTo(32); // touches a0 a1
    cache.lookupAndInsert(ids(900, 33), 33); // evicts b0 b1, the least recent
    assertThat(cache.size()).isEqualTo(4);
    assertThat(cache.lookupAndInsert(ids(500, 33), 33)).isZero();
  }

  @Test
  void capacityBelowOneBlockIsRefused() {
    assertThatThrownBy(() -> new LruPrefixCache(8)).isInstanceOf(IllegalArgumentException.class);
  }
}
