package dev.tokenmeter.simulator.engine;

/**
 * The KV-cache blocks the sequences of one {@link BatchEngine} hold, against its {@link
 * KvBlockPool}: the prefix-cache lookup when a sequence is admitted, the blocks each scheduled
 * chunk adds (and the prompt blocks it fills, registered for the cache), their release; and the
 * prompt tokens admitted and served from the cache so far.
 *
 * <pre>
 * design notes
 * - KV blocks are allocated for the tokens scheduled (MemoryPlan.kvBlocksFor: one per
 *   blockTokens tokens, plus a windowed cache's sliding layers' blocks).
 * - Prefix caching (EngineConfig.prefixCaching, vLLM's automatic prefix caching): a sequence
 *   submitted with BlockHashes looks its prompt up when it is admitted; its leading full blocks
 *   already cached are taken as computed (no prefill FLOPs; their KV is still read as context).
 *   At least one prompt token is always computed (vLLM needs the last token's logits), so at most
 *   (prompt − 1) / blockTokens blocks hit. Cached blocks count against the capacity while held
 *   and stay cached when released, evicted least recently released first when room is needed
 *   (KvBlockPool). Only prompt blocks are cached, not generated ones.
 * </pre>
 *
 * <p>Not thread-safe: owned by one {@link BatchEngine}.
 */
final class SequenceBlocks {

  private final KvBlockPool pool;
  private final MemoryPlan memory;
  private final int blockTokens;
  private long admittedPromptTokens;
  private long cachedPromptTokens;

  SequenceBlocks(Roofline roofline) {
    this.memory = roofline.memory();
    this.blockTokens = roofline.config().blockTokens();
    this.pool = new KvBlockPool(memory.kvCapacityBlocks());
  }

  /** Blocks a sequence of {@code tokens} holds ({@link Roofline#kvBlocksFor}). */
  long blocksFor(long tokens) {
    return memory.kvBlocksFor(tokens);
  }

  /**
   * Leading prompt blocks of {@code s} (new or preempted: nothing computed) found in the prefix
   * cache, leaving at least one token to compute; 0 when its prompt cannot be shared.
   */
  int cachedPrefix(EngineSequence s) {
    if (s.hashes == null) {
      return 0;
    }
    int limit = (s.promptTokens + s.generated - 1) / blockTokens; // one token is computed
    return pool.match(s.hashes, Math.min(s.cacheableBlocks, limit));
  }

  /**
   * Whether {@code need} more blocks fit next to the {@code hit} cached ones {@link #cachedPrefix}
   * just found (those held by nobody take free room too).
   */
  boolean fits(long need, int hit) {
    return need + (hit > 0 ? pool.lastEvictable() : 0) <= pool.free();
  }

  /**
   * Admits {@code s} with its {@code hit} cached prompt blocks taken as computed; at its first
   * admission, counts its prompt and the part served from the cache.
   */
  void admit(EngineSequence s, int hit) {
    for (int i = 0; i < hit; i++) {
      s.refs[i] = pool.acquire(s.hashes.chainHash(i));
    }
    s.refCount = hit;
    s.hashedBlocks = hit;
    s.blocks = hit;
    s.computed = hit * blockTokens;
    if (!s.admittedOnce) {
      s.admittedOnce = true;
      admittedPromptTokens += s.promptTokens;
      cachedPromptTokens += (long) hit * blockTokens;
      s.firstHitTokens = hit * blockTokens;
    }
  }

  /**
   * Gives {@code s} {@code blocks} more for its next {@code n} tokens; the full prompt blocks they
   * fill become cached (vLLM caches at scheduling time).
   */
  void grow(EngineSequence s, int n, long blocks) {
    s.blocks += blocks;
    pool.take(blocks);
    if (s.hashes != null) {
      int full = Math.min(s.cacheableBlocks, (s.computed + n) / blockTokens);
      for (int i = s.hashedBlocks; i < full; i++) {
        KvBlockPool.Block b = pool.register(s.hashes.chainHash(i));
        if (b != null) {
          s.refs[i] = b;
          s.refCount++;
        }
      }
      s.hashedBlocks = Math.max(s.hashedBlocks, full);
    }
  }

  /** Gives {@code s} {@code blocks} private blocks outright (a handed-off sequence's KV). */
  void reserve(EngineSequence s, long blocks) {
    s.blocks = blocks;
    pool.take(blocks);
  }

  /** Gives back every block {@code s} holds: cached ones last block first, then private ones. */
  void release(EngineSequence s) {
    if (s.refs != null) {
      for (int i = s.refs.length - 1; i >= 0; i--) {
        if (s.refs[i] != null) {
          pool.release(s.refs[i]);
          s.refs[i] = null;
        }
      }
    }
    pool.releasePrivate(s.blocks - s.refCount);
    s.blocks = 0;
    s.refCount = 0;
    s.hashedBlocks = 0;
  }

  /** Blocks an allocation may take: empty plus evictable. */
  long free() {
    return pool.free();
  }

  /** Blocks in use: held by sequences or reserved for handoffs on their way. */
  long used() {
    return pool.capacity() - pool.free();
  }

  long cachedBlocks() {
    return pool.cachedBlocks();
  }

  long evictions() {
    return pool.evictions();
  }

  long admittedPromptTokens() {
    return admittedPromptTokens;
  }

  long cachedPromptTokens() {
    return cachedPromptTokens;
  }
}
