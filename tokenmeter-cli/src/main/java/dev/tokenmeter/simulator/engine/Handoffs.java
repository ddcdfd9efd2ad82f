package dev.tokenmeter.simulator.engine;

import java.util.HashMap;
import java.util.Map;

/**
 * The disaggregated side of one {@link BatchEngine} ({@link DisaggregatedEngine}): on a PREFILL
 * instance, the finished prompts whose KV cache waits for its transfer to a decode instance; on a
 * DECODE instance, the handed-off sequences whose blocks are taken and whose KV is still on its
 * way. Each such sequence keeps its place in the engine's register of ids until it leaves.
 *
 * <p>Not thread-safe: owned by one {@link BatchEngine}.
 */
final class Handoffs {

  /** PREFILL: finished prompts whose KV waits for its transfer to a decode instance. */
  private final Map<Long, EngineSequence> held = new HashMap<>();
  /** DECODE: handed-off sequences whose blocks are taken and whose KV is still on its way. */
  private final Map<Long, EngineSequence> incoming = new HashMap<>();
  /** The engine's sequences by id, shared with it. */
  private final Map<Long, EngineSequence> byId;
  private final SequenceBlocks kv;
  private final int maxNumSeqs;

  Handoffs(Map<Long, EngineSequence> byId, SequenceBlocks kv, int maxNumSeqs) {
    this.byId = byId;
    this.kv = kv;
    this.maxNumSeqs = maxNumSeqs;
  }

  /** Whether a transfer is pending: blocks held for one out, or taken for one on its way in. */
  boolean pending() {
    return !held.isEmpty() || !incoming.isEmpty();
  }

  /** PREFILL: {@code s}'s prompt is done; its KV stays until the transfer ends. */
  void hold(EngineSequence s) {
    held.put(s.id, s);
  }

  /** PREFILL: see {@link BatchEngine#releaseHeld}. */
  boolean releaseHeld(long id) {
    EngineSequence s = held.remove(id);
    if (s == null) {
      return false;
    }
    byId.remove(id);
    kv.release(s);
    return true;
  }

  int heldSequences() {
    return held.size();
  }

  /**
   * DECODE: see {@link BatchEngine#acceptHandoff}; {@code engineSequences} are those running or
   * waiting in the engine, which count against max_num_seqs with the incoming ones.
   */
  boolean accept(long id, int promptTokens, int outputTokens, long arrivalNanos,
      int engineSequences) {
    long need = kv.blocksFor((long) promptTokens + 1);
    if (engineSequences + incoming.size() >= maxNumSeqs || need > kv.free()) {
      return false;
    }
    EngineSequence s = new EngineSequence(id, promptTokens, outputTokens, arrivalNanos, null);
    if (byId.putIfAbsent(id, s) != null) {
      throw new IllegalArgumentException("sequence " + id + " already submitted");
    }
    s.admittedOnce = true;
    s.computed = promptTokens;
    s.generated = 1; // token 0 came from the prefill instance; its KV is computed in the first step
    kv.reserve(s, need);
    incoming.put(id, s);
    return true;
  }

  /** DECODE: the accepted handoff {@code id}, its KV arrived, taken off the incoming ones. */
  EngineSequence land(long id) {
    EngineSequence s = incoming.remove(id);
    if (s == null) {
      throw new IllegalStateException("no handoff " + id + " on its way");
    }
    return s;
  }

  /** Forgets a cancelled sequence held or on its way; its blocks are the caller's to release. */
  void forget(long id) {
    if (held.remove(id) == null) {
      incoming.remove(id);
    }
  }
}
