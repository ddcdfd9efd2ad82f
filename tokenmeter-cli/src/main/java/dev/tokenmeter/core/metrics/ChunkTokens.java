package dev.tokenmeter.core.metrics;

import java.util.Arrays;

/**
 * Spreads a request's {@code n} output tokens over its text chunks.
 *
 * <p>Rule: when {@code n} equals the chunk count, every chunk carries one token. Otherwise chunk
 * {@code i} gets its share {@code n · chars_i / Σchars} by the largest-remainder (Hamilton)
 * method: each chunk first gets the floor of its share, and the tokens left over go one each to
 * the chunks with the largest remainders, the earlier chunk first on a tie. The result sums to
 * {@code n} exactly, every chunk gets the floor or the ceiling of its share, and the arithmetic is
 * integer (no floating-point drift). Chunks may get 0 tokens when {@code n} is below the chunk
 * count. When every chunk has 0 chars (not possible for real text chunks) they weigh equally.
 */
final class ChunkTokens {
  private ChunkTokens() {}

  /** Tokens of each of the first {@code count} chunks whose sizes are {@code chars}. */
  static int[] distribute(int n, int[] chars, int count) {
    if (n < 0) {
      throw new IllegalArgumentException("negative token count " + n);
    }
    int[] k = new int[count];
    if (count == 0) {
      return k;
    }
    if (n == count) {
      Arrays.fill(k, 1);
      return k;
    }
    long total = 0;
    for (int i = 0; i < count; i++) {
      total += chars[i];
    }
    boolean equalWeights = total == 0;
    if (equalWeights) {
      total = count;
    }
    // key = (total − 1 − remainder) << 32 | index: ascending keys are descending remainders,
    // earlier index first on a tie. remainder < total ≤ 2^31 · count fits the high bits for any
    // realistic response (total chars < 2^31).
    long[] keys = new long[count];
    long assigned = 0;
    for (int i = 0; i < count; i++) {
      long weight = equalWeights ? 1 : chars[i];
      long share = (long) n * weight;
      k[i] = (int) (share / total);
      long remainder = share % total;
      assigned += k[i];
      keys[i] = ((total - 1 - remainder) << 32) | i;
    }
    int left = (int) (n - assigned);
    if (left > 0) {
      Arrays.sort(keys);
      for (int j = 0; j < left; j++) {
        k[(int) (keys[j] & 0xFFFF_FFFFL)]++;
      }
    }
    return k;
  }
}
