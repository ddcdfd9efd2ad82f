package dev.tokenmeter.simulator.engine;

/**
 * One request inside {@link BatchEngine}: its lengths, how far it has computed and generated, and
 * the KV-cache blocks it holds. Mutable, confined to its engine.
 */
final class EngineSequence {
  final long id;
  final int promptTokens;
  final int outputTokens;
  final long arrivalNanos;
  int computed;
  int generated;
  long blocks;
  int scheduled;
  /** The prompt's content identity; null when it cannot be shared. */
  final BlockHashes hashes;
  /** Cached blocks held, by prompt block index (null: private or not yet computed). */
  final KvBlockPool.Block[] refs;
  /** Full prompt blocks with a hash: at most promptTokens / blockTokens. */
  final int cacheableBlocks;
  int refCount;
  /** Prompt blocks registered or found in the cache so far (0 after a preemption). */
  int hashedBlocks;
  boolean admittedOnce;
  /** Prompt tokens served from the prefix cache at the first admission. */
  int firstHitTokens;
  /** Speculative decoding: expected tokens earned and not yet emitted, in [0, 1) between steps. */
  double specCredit;

  EngineSequence(long id, int promptTokens, int outputTokens, long arrivalNanos, BlockHashes hashes) {
    this.id = id;
    this.promptTokens = promptTokens;
    this.outputTokens = outputTokens;
    this.arrivalNanos = arrivalNanos;
    this.hashes = hashes;
    this.cacheableBlocks =
        hashes == null ? 0 : Math.min(hashes.fullBlocks(), promptTokens / hashes.blockTokens());
    this.refs = hashes == null ? null : new KvBlockPool.Block[cacheableBlocks];
  }

  int pending() {
    return promptTokens + generated - computed;
  }
}
