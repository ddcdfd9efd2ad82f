package dev.tokenmeter.simulator.engine;

import java.util.HashMap;
import java.util.Map;

/**
 * The KV-cache blocks of one engine, and the prefix cache over them (vLLM V1's block pool with
 * automatic prefix caching).
 *
 * <pre>
 * design notes
 * - Every block is in one of three states: referenced (held by running sequences; a cached block
 *   may be held by several and counts once), evictable (cached content, held by nobody) or empty.
 *   free = evictable + empty: an allocation takes empty blocks first, then evicts the least
 *   recently released evictable block (vLLM pops its free queue from the head, where never-used
 *   blocks sit before freed ones).
 * - A cached block is keyed by its chained hash (BlockHashes). A sequence registers a full prompt
 *   block when the iteration computing it is composed (vLLM caches blocks at scheduling time).
 *   When the hash is already cached (two identical prompts prefilled at once) the second copy
 *   stays private, as in vLLM.
 * - Release order: a sequence hands its cached blocks back last block first, so its prompt's tail
 *   is evicted before its head (the head is what other prompts share), as vLLM frees in reverse.
 * - Memory: the map holds at most the capacity's worth of blocks (27,669 for Llama 3.1 8B on one
 *   H100), whatever the number of requests simulated.
 * </pre>
 *
 * <p>Not thread-safe: owned by the {@link SequenceBlocks} of one {@link BatchEngine}.
 */
final class KvBlockPool {

  /** One cached block: its hash, its holders, its place in the eviction order when held by none. */
  static final class Block {
    final long hash;
    int refs;
    Block older;
    Block newer;

    Block(long hash) {
      this.hash = hash;
    }
  }

  private final long capacity;
  private final Map<Long, Block> cached = new HashMap<>();
  private long free;
  private long empty;
  private long evictions;
  /** Evictable blocks, least recently released first. */
  private Block oldest;
  private Block newest;
  private int lastEvictable;

  KvBlockPool(long capacityBlocks) {
    this.capacity = capacityBlocks;
    this.free = capacityBlocks;
    this.empty = capacityBlocks;
  }

  long capacity() {
    return capacity;
  }

  /** Blocks an allocation may take: empty plus evictable. */
  long free() {
    return free;
  }

  /** Blocks holding cached content, referenced or evictable. */
  long cachedBlocks() {
    return cached.size();
  }

  /** Cached blocks evicted so far to make room. */
  long evictions() {
    return evictions;
  }

  /**
   * How many leading blocks of {@code hashes}, at most {@code maxBlocks}, are cached; {@link
   * #lastEvictable()} then tells how many of those are held by nobody (taking them uses free room).
   */
  int match(BlockHashes hashes, int maxBlocks) {
    int n = 0;
    int evictable = 0;
    while (n < maxBlocks) {
      Block b = cached.get(hashes.chainHash(n));
      if (b == null) {
        break;
      }
      evictable += b.refs == 0 ? 1 : 0;
      n++;
    }
    lastEvictable = evictable;
    return n;
  }

  /** Evictable blocks among those the last {@link #match} found. */
  int lastEvictable() {
    return lastEvictable;
  }

  /** Takes a reference to the cached block with this hash (which {@link #match} found). */
  Block acquire(long hash) {
    Block b = cached.get(hash);
    if (b.refs++ == 0) {
      unlink(b);
      free--;
    }
    return b;
  }

  /** Takes {@code n ≤ free()} blocks for private use: empty ones first, then evicts the oldest. */
  void take(long n) {
    if (n > free) {
      throw new IllegalStateException("taking " + n + " blocks, " + free + " free");
    }
    free -= n;
    long fromEmpty = Math.min(n, empty);
    empty -= fromEmpty;
    for (long i = fromEmpty; i < n; i++) {
      Block victim = oldest;
      unlink(victim);
      cached.remove(victim.hash);
      evictions++;
    }
  }

  /**
   * Turns one private block, just filled with the content of {@code hash}, into a cached block
   * held once; null when that content is cached already (the block stays private).
   */
  Block register(long hash) {
    Block b = new Block(hash);
    if (cached.putIfAbsent(hash, b) != null) {
      return null;
    }
    b.refs = 1;
    return b;
  }

  /** Drops one reference; the block becomes the newest evictable one when nobody holds it. */
  void release(Block b) {
    if (--b.refs == 0) {
      b.older = newest;
      b.newer = null;
      if (newest != null) {
        newest.newer = b;
      } else {
        oldest = b;
      }
      newest = b;
      free++;
    }
  }

  /** Gives back {@code n} private blocks: they are empty again. */
  void releasePrivate(long n) {
    empty += n;
    free += n;
  }

  private void unlink(Block b) {
    if (b.older != null) {
      b.older.newer = b.newer;
    } else {
      oldest = b.newer;
    }
    if (b.newer != null) {
      b.newer.older = b.older;
    } else {
      newest = b.older;
    }
    b.older = null;
    b.newer = null;
  }
}
