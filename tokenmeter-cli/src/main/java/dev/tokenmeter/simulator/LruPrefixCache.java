package dev.tokenmeter.simulator;

import dev.tokenmeter.simulator.engine.BlockHashes;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The prefix cache a timing model without one ({@link TimingModel#cachesPrefixes()} false: the
 * fixed and zero-delay schedules) reports its cached prompt tokens from: a least-recently-used set
 * of prompt-block hashes of a stated size. It changes no timing (a fixed schedule is fixed by
 * definition); it makes {@code usage}'s cached tokens truthful for the prompts the server saw, so
 * a conversation that resends its growing history gets hits as on a vLLM server.
 *
 * <pre>
 * design notes
 * - Blocks of 16 tokens (vLLM's default block size) of the request's stand-in ids (PromptTokens:
 *   equal text, equal ids), chained as BlockHashes does: block i's hash covers blocks 0..i.
 * - Lookup as vLLM's automatic prefix caching: the leading run of full blocks found, at most
 *   (prompt − 1) / 16 blocks (one token is always computed). Then every full block of the prompt
 *   is inserted or touched, most recent last; beyond the capacity the least recently used block
 *   goes. A block evicted from the middle of a chain ends later lookups there, as in vLLM.
 * - Capacity: 524,288 tokens by default (32,768 blocks), the KV cache left for Llama-3.1-8B on
 *   one 80 GB H100 (128 KiB of KV per token, about 64 GiB free after the weights).
 * </pre>
 *
 * <p>Thread-safe (one lock; calls come from every event loop, one per request).
 */
final class LruPrefixCache {

  /** Tokens per block: vLLM's default {@code --block-size}. */
  static final int BLOCK_TOKENS = 16;

  /** The default capacity in tokens (see the design notes). */
  static final int DEFAULT_TOKENS = 524_288;

  private final int capacityBlocks;
  private final LinkedHashMap<Long, Boolean> blocks;

  /**
   * @param capacityTokens tokens the cache holds, rounded down to whole blocks; ≥ 1 block
   */
  LruPrefixCache(int capacityTokens) {
    if (capacityTokens < BLOCK_TOKENS) {
      throw new IllegalArgumentException(
          "prefix cache capacity must be >= " + BLOCK_TOKENS + " tokens: " + capacityTokens);
    }
    this.capacityBlocks = capacityTokens / BLOCK_TOKENS;
    this.blocks =
        new LinkedHashMap<>(Math.min(capacityBlocks, 1 << 16), 0.75f, /* accessOrder= */ true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
            return size() > capacityBlocks;
          }
        };
  }

  /**
   * Looks the prompt up, then caches its full blocks: returns the prompt tokens found (a multiple
   * of 16, at most {@code promptTokens − 1}); 0 when {@code ids} is null (content unknown).
   *
   * @param ids the prompt's token ids or stand-ins
   * @param promptTokens the prompt's length (ids beyond it are ignored)
   */
  synchronized int lookupAndInsert(int[] ids, int promptTokens) {
    if (ids == null || promptTokens < 1) {
      return 0;
    }
    BlockHashes hashes = BlockHashes.ofTokens(ids, Math.min(ids.length, promptTokens), BLOCK_TOKENS);
    int limit = Math.min(hashes.fullBlocks(), (promptTokens - 1) / BLOCK_TOKENS);
    int hit = 0;
    while (hit < limit && blocks.containsKey(hashes.chainHash(hit))) {
      hit++;
    }
    for (int i = 0; i < hashes.fullBlocks(); i++) {
      blocks.put(hashes.chainHash(i), Boolean.TRUE); // touches: most recent last
    }
    return hit * BLOCK_TOKENS;
  }

  /** Blocks held now. */
  synchronized int size() {
    return blocks.size();
  }
}
