package dev.tokenmeter.simulator.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The scheduler of one {@link BatchEngine}: its running and waiting sequences, and the composition
 * of each iteration's batch from them (what every scheduled sequence computes, admissions,
 * preemptions), its KV blocks taken from {@link SequenceBlocks}.
 *
 * <pre>
 * design notes
 * - Composition (vLLM V1, EngineProfile.Scheduling.MIXED): running sequences first, in admission
 *   order, each taking what it still has to compute (1 token when decoding, a prompt chunk when
 *   prefilling) within the token budget; then waiting sequences first come first served while the
 *   budget, max_num_seqs and free KV blocks allow (the admission queue). Nothing new is admitted
 *   in an iteration that had to preempt. PREFILL_FIRST (SGLang): the same, decoding sequences
 *   left out, whenever that schedules any prompt token; otherwise a decode-only iteration.
 *   LMDeploy's TurboMind 0.1 composes as MIXED with a token budget its prompts never reach, so
 *   each admitted prompt is prefilled whole in the iteration that admits it.
 * - Admission RESERVE_FULL (TensorRT-LLM's GUARANTEED_NO_EVICT): a request's blocks for its whole
 *   prompt and output are taken when it is admitted, so running sequences never need more and are
 *   never preempted.
 * - When a running sequence needs a block and none is free, the most recently admitted running
 *   sequence is preempted (recompute: its blocks freed, its prompt and the tokens it generated so
 *   far prefilled again later) and goes to the front of the waiting queue.
 * - A disaggregated PREFILL instance prefills each prompt whole (chunked prefill off): an
 *   iteration batches prompts while they fit the token budget, a longer one runs alone.
 * </pre>
 *
 * <p>Not thread-safe: owned by one {@link BatchEngine}.
 */
final class Scheduler {

  private final List<EngineSequence> running = new ArrayList<>();
  private final ArrayDeque<EngineSequence> waiting = new ArrayDeque<>();
  private final List<EngineSequence> batch = new ArrayList<>();
  private final SequenceBlocks kv;
  private final BatchEngine.Listener listener;
  private final int blockTokens;
  private final int maxBatchedTokens;
  private final int maxNumSeqs;
  private final Speculation spec;
  private final boolean prefillFirst;
  private final boolean reserveFull;
  /** Chunked prefill off: a prompt is admitted whole or not at all (a PREFILL instance). */
  private final boolean wholePrompts;
  private long preemptions;

  Scheduler(EngineConfig config, SequenceBlocks kv, BatchEngine.Listener listener,
      boolean wholePrompts) {
    this.kv = kv;
    this.listener = listener;
    this.blockTokens = config.blockTokens();
    this.maxBatchedTokens = config.schedulerMaxBatchedTokens();
    this.maxNumSeqs = config.schedulerMaxNumSeqs();
    this.spec = config.speculation();
    this.prefillFirst = config.profile().scheduling() == EngineProfile.Scheduling.PREFILL_FIRST;
    this.reserveFull = config.profile().admission() == EngineProfile.Admission.RESERVE_FULL;
    this.wholePrompts = wholePrompts;
  }

  /** Queues a sequence behind the waiting ones. */
  void enqueue(EngineSequence s) {
    waiting.addLast(s);
  }

  /** A sequence whose KV is already computed (a handoff that landed) runs from the next batch. */
  void resume(EngineSequence s) {
    running.add(s);
  }

  /** Takes {@code s} off the running sequences (its last token is out). */
  void finish(EngineSequence s) {
    running.remove(s);
  }

  /** Takes {@code s} off the running or waiting sequences; false when it is in neither. */
  boolean remove(EngineSequence s) {
    return running.remove(s) || waiting.remove(s);
  }

  int running() {
    return running.size();
  }

  int waiting() {
    return waiting.size();
  }

  /** The arrival of the first waiting sequence; only when {@link #waiting()} is not 0. */
  long firstWaitingArrivalNanos() {
    return waiting.peekFirst().arrivalNanos;
  }

  long preemptions() {
    return preemptions;
  }

  /** The batch the last {@link #compose} filled, in scheduling order. */
  List<EngineSequence> batch() {
    return batch;
  }

  /**
   * Composes the batch of an iteration starting at {@code start}; false when nothing could be
   * scheduled (the batch is empty).
   */
  boolean compose(long start) {
    batch.clear();
    // SGLang's prefill-first policy: prefill when a prompt can make progress, else decode all.
    if (!prefillFirst || !compose(start, true)) {
      compose(start, false);
    }
    return !batch.isEmpty();
  }

  /**
   * Fills {@link #batch} for an iteration starting at {@code start}: running sequences first, in
   * admission order (only prefilling ones when {@code prefillOnly}), then waiting ones while the
   * budget, max_num_seqs and free blocks allow. Returns whether anything was scheduled.
   */
  private boolean compose(long start, boolean prefillOnly) {
    int budget = maxBatchedTokens;
    boolean preempted = false;
    for (int i = 0; i < running.size() && budget > 0; i++) {
      EngineSequence s = running.get(i);
      if (prefillOnly && s.computed >= s.promptTokens) {
        continue;
      }
      int n = Math.min(s.pending(), budget);
      // speculative decoding reserves the verify pass's 1 + K positions (vLLM's lookahead slots)
      int positions = n == 1 && s.computed >= s.promptTokens ? lookahead(s) : n;
      long need = Math.max(0, kv.blocksFor(s.computed + positions) - s.blocks);
      while (need > kv.free() && running.get(running.size() - 1) != s) {
        preempt(running.get(running.size() - 1), start);
        preempted = true;
      }
      if (need > kv.free()) {
        preempt(s, start); // s itself is the newest: it waits for room
        preempted = true;
        break;
      }
      allocate(s, n, need);
      budget -= n;
    }
    while (!preempted && budget > 0 && !waiting.isEmpty() && running.size() < maxNumSeqs) {
      EngineSequence next = waiting.peekFirst();
      boolean first = !next.admittedOnce;
      if (!admit(next, budget)) {
        break; // admission queue: the KV cache is full
      }
      if (first) {
        listener.firstScheduled(next.id, start, next.firstHitTokens);
      }
      budget -= batch.get(batch.size() - 1).scheduled;
    }
    return !batch.isEmpty();
  }

  /**
   * Admits {@code s} (computed = 0, no blocks: new or preempted) with at most {@code budget} tokens
   * of its prompt, when its blocks fit: those it needs now, or its whole prompt and output when the
   * profile reserves at admission. False, and nothing changes, when they do not.
   */
  private boolean admit(EngineSequence s, int budget) {
    int hit = kv.cachedPrefix(s);
    int whole = s.pending() - hit * blockTokens;
    if (wholePrompts && whole > budget && !batch.isEmpty()) {
      return false; // chunked prefill off: the prompt waits for an iteration with room for it whole
    }
    int n = wholePrompts ? whole : Math.min(whole, budget);
    long upTo = reserveFull ? (long) s.promptTokens + s.outputTokens : (long) hit * blockTokens + n;
    long need = kv.blocksFor(upTo) - hit;
    if (!kv.fits(need, hit)) {
      return false;
    }
    waiting.pollFirst();
    running.add(s);
    kv.admit(s, hit);
    allocate(s, n, need);
    return true;
  }

  private void allocate(EngineSequence s, int n, long blocks) {
    kv.grow(s, n, blocks);
    s.scheduled = n;
    batch.add(s);
  }

  private void preempt(EngineSequence s, long atNanos) {
    running.remove(s);
    batch.remove(s);
    kv.release(s);
    s.computed = 0;
    s.scheduled = 0;
    waiting.addFirst(s);
    preemptions++;
    listener.preempted(s.id, atNanos);
  }

  /** Positions a decoding sequence's step needs KV blocks for: 1, or 1 + K when speculating. */
  private int lookahead(EngineSequence s) {
    int owed = s.outputTokens - s.generated;
    return spec.enabled() ? Math.min(spec.positionsPerStep(), Math.max(1, owed)) : 1;
  }
}
