package dev.tokenmeter.ledger;

import java.util.Arrays;

/**
 * A prompt as the proxy's trace capture keeps it: the keyed hash of each fixed-size block of its
 * text, chained (block i's hash covers blocks 0..i, so two prompts share hash i exactly when they
 * share their first i + 1 blocks), and the length of the text hashed. Never the text.
 * Immutable; the array is the caller's to leave alone.
 *
 * <p>In the ledger (migration V4) {@code prompt_blocks} is the block size, a colon, then the hashes,
 * 12 lower-case hex digits each (the hash's low {@value #BITS} bits), comma-separated ({@code
 * 256:0a1b2c3d4e5f,...}); {@code prompt_chars} is the length.
 *
 * @param hashes one hash per block of the prompt's text, in order, each in {@code [0, 2^48)}; the
 *     last block may be partial
 * @param chars the length of the text hashed, in UTF-16 characters
 * @param blockChars characters per block, at least 1
 */
public record PromptBlocks(long[] hashes, int chars, int blockChars) {
  /** Bits kept of each hash: 2^48 ids, so a window of 10^7 distinct blocks has about 0.2 expected collisions in all. */
  public static final int BITS = 48;

  private static final long MASK = (1L << BITS) - 1;
  private static final int HEX = BITS / 4;

  public PromptBlocks {
    if (chars < 0 || blockChars < 1) {
      throw new IllegalArgumentException("chars " + chars + ", blockChars " + blockChars);
    }
    for (long h : hashes) {
      if ((h & ~MASK) != 0) {
        throw new IllegalArgumentException("hash over " + BITS + " bits: " + h);
      }
    }
  }

  /** A hash cut to the bits the ledger keeps. */
  public static long keep(long hash) {
    return hash & MASK;
  }

  /** The {@code prompt_blocks} column's text: the block size, ':', then 12 hex digits per hash, comma-separated. */
  public String encoded() {
    StringBuilder sb = new StringBuilder(8 + hashes.length * (HEX + 1)).append(blockChars).append(':');
    for (int i = 0; i < hashes.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      String hex = Long.toHexString(hashes[i]);
      sb.append("0".repeat(HEX - hex.length())).append(hex);
    }
    return sb.toString();
  }

  /**
   * The blocks a {@code prompt_blocks} text and {@code prompt_chars} stand for.
   *
   * @throws IllegalArgumentException when the text is not a block size, ':' and 12-hex-digit hashes
   *     separated by commas
   */
  public static PromptBlocks decode(String encoded, int chars) {
    int colon = encoded.indexOf(':');
    if (colon < 1) {
      throw new IllegalArgumentException("prompt_blocks does not start with its block size and ':'");
    }
    int blockChars = Integer.parseInt(encoded.substring(0, colon));
    String list = encoded.substring(colon + 1);
    if (list.isEmpty()) {
      return new PromptBlocks(new long[0], chars, blockChars);
    }
    String[] parts = list.split(",", -1);
    long[] hashes = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      if (parts[i].length() != HEX) {
        throw new IllegalArgumentException("prompt_blocks item " + i + " is not " + HEX + " hex digits: " + parts[i]);
      }
      hashes[i] = Long.parseUnsignedLong(parts[i], 16);
    }
    return new PromptBlocks(hashes, chars, blockChars);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PromptBlocks p && p.chars == chars && p.blockChars == blockChars
        && Arrays.equals(p.hashes, hashes);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Arrays.hashCode(hashes) + chars) + blockChars;
  }

  @Override
  public String toString() {
    return "PromptBlocks[" + hashes.length + " blocks of " + blockChars + " chars, " + chars + " chars]";
  }
}
