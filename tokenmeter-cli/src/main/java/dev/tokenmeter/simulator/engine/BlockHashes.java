package dev.tokenmeter.simulator.engine;

import java.util.Objects;

/**
 * The content identity of a prompt, block by block, for prefix caching: the chained hash of each
 * of its full KV-cache blocks, as vLLM's automatic prefix caching keys them. The hash of block
 * {@code i} covers the content of blocks {@code 0..i}, so two prompts have equal hashes at {@code
 * i} exactly when their first {@code (i + 1) × blockTokens} tokens are equal (up to 64-bit
 * collisions, about 1 in 10^19 per pair). Only full blocks have a hash; a partial last block is
 * never shared.
 *
 * <p>Implementations are immutable and thread-safe.
 */
public interface BlockHashes {

  /** Tokens per block these hashes were cut at: must equal the engine's block size. */
  int blockTokens();

  /** Full blocks of the prompt, each with a hash. */
  int fullBlocks();

  /** Chained hash of block {@code index}, {@code 0 ≤ index < fullBlocks()}. */
  long chainHash(int index);

  /**
   * Hashes of a prompt given as token ids (or any stand-ins: equal ids mean equal content), cut
   * into blocks of {@code blockTokens}. Computed now: one long per full block is kept.
   */
  static BlockHashes ofTokens(int[] tokenIds, int tokenCount, int blockTokens) {
    Objects.requireNonNull(tokenIds, "tokenIds");
    if (blockTokens < 1 || tokenCount < 0 || tokenCount > tokenIds.length) {
      throw new IllegalArgumentException("need blockTokens >= 1 and 0 <= tokenCount <= ids");
    }
    long[] chain = new long[tokenCount / blockTokens];
    long previous = 0x6A09E667F3BCC909L; // an arbitrary start: √2's fraction bits
    for (int b = 0; b < chain.length; b++) {
      long content = 0;
      for (int t = b * blockTokens; t < (b + 1) * blockTokens; t++) {
        content = mix(content * 31 + tokenIds[t]);
      }
      previous = mix(previous ^ content);
      chain[b] = previous;
    }
    return new Chain(chain, blockTokens);
  }

  /**
   * Hashes of a synthetic prompt whose first {@code sharedTokens} tokens are the same in every
   * prompt built with this {@code prefixKey} and whose rest is unique to {@code uniqueKey}: its
   * first {@code sharedTokens / blockTokens} blocks hash alike across prompts, every later block
   * (the one holding the boundary included) is unique. Computed on demand; nothing is stored.
   *
   * @param promptTokens the prompt's length, shared prefix included
   */
  static BlockHashes sharedPrefix(
      long prefixKey, int sharedTokens, long uniqueKey, int promptTokens, int blockTokens) {
    if (blockTokens < 1 || sharedTokens < 0 || promptTokens < 0) {
      throw new IllegalArgumentException("need blockTokens >= 1 and counts >= 0");
    }
    return new Synthetic(
        prefixKey, Math.min(sharedTokens, promptTokens) / blockTokens, uniqueKey,
        promptTokens / blockTokens, blockTokens);
  }

  /** The murmur3 64-bit finalizer: a bijection that spreads every input bit over the output. */
  static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
    z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return z ^ (z >>> 33);
  }

  /** Eagerly computed chain. */
  record Chain(long[] chain, int blockTokens) implements BlockHashes {
    @Override
    public int fullBlocks() {
      return chain.length;
    }

    @Override
    public long chainHash(int index) {
      return chain[index];
    }
  }

  /**
   * Shared blocks hash as {@code (prefixKey, index)}, unique ones as {@code (uniqueKey, index)}
   * in another domain (the odd constant), so the two never meet.
   */
  record Synthetic(
      long prefixKey, int sharedBlocks, long uniqueKey, int fullBlocks, int blockTokens)
      implements BlockHashes {
    @Override
    public long chainHash(int index) {
      if (index < sharedBlocks) {
        return mix(mix(prefixKey) + index);
      }
      return mix(mix(uniqueKey ^ 0x9E3779B97F4A7C15L) * 31 + index + 1);
    }
  }
}
