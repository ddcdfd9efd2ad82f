package dev.tokenmeter.simulator.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An iteration-level continuous-batching engine in virtual time (nanoseconds, no clock): the
 * scheduler of vLLM V1 with chunked prefill, over the {@link Roofline} cost model.
 *
 * <pre>{@code
 * BatchEngine engine = new BatchEngine(EngineConfig.of(Presets.model("llama-3.1-8b"),
 *     Presets.gpu("h100-sxm")), (id, index, atNanos) -> ...);
 * engine.submit(1, 256, 128, 0);
 * engine.advanceTo(Long.MAX_VALUE);   // runs every iteration until idle
 * }</pre>
 *
 * <pre>
 * design notes
 * - Iterations run back to back while there is work; an idle engine starts the next one at the
 *   first waiting arrival. An iteration is composed when it starts, from the sequences submitted
 *   by then, and its end time is fixed then: later arrivals join the next one.
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
 * - KV blocks are allocated for the tokens scheduled. When a running sequence needs a block and
 *   none is free, the most recently admitted running sequence is preempted (recompute: its blocks
 *   freed, its prompt and the tokens it generated so far prefilled again later) and goes to the
 *   front of the waiting queue.
 * - A sequence must compute prompt + generated tokens before it can emit the next token: the
 *   iteration that completes its prompt emits token 0, each later one token more. Tokens are
 *   emitted at the iteration's end. A sequence leaves after its last token, freeing its blocks.
 * - Prefix caching (EngineConfig.prefixCaching, vLLM's automatic prefix caching): a sequence
 *   submitted with BlockHashes looks its prompt up when it is admitted; its leading full blocks
 *   already cached are taken as computed (no prefill FLOPs; their KV is still read as context).
 *   At least one prompt token is always computed (vLLM needs the last token's logits), so at most
 *   (prompt − 1) / blockTokens blocks hit. Cached blocks count against the capacity while held
 *   and stay cached when released, evicted least recently released first when room is needed
 *   (KvBlockPool). Only prompt blocks are cached, not generated ones.
 * </pre>
 *
 * <p>Not thread-safe: confine it to one thread or guard it.
 */
public final class BatchEngine {

  /** Receives every emitted token and every preemption, in time order. */
  @FunctionalInterface
  public interface Listener {
    /** Token {@code index} (from 0) of sequence {@code id} is emitted at {@code atNanos}. */
    void token(long id, int index, long atNanos);

    /** Sequence {@code id} lost its KV cache at {@code atNanos} and will recompute it. */
    default void preempted(long id, long atNanos) {}

    /**
     * Sequence {@code id} was scheduled for the first time, in the iteration starting at {@code
     * atNanos}, with {@code cachedPromptTokens} of its prompt found in the prefix cache (a multiple
     * of the block size; 0 without caching).
     */
    default void firstScheduled(long id, long atNanos, int cachedPromptTokens) {}
  }

  /**
   * What one iteration did.
   *
   * @param startNanos when it started
   * @param endNanos when it ended (its tokens' emission time)
   * @param tokens tokens processed (decode and prefill together)
   * @param decodeSequences sequences that processed exactly one token
   * @param prefillSequences sequences that processed a prompt chunk (or a recompute)
   * @param waiting sequences left waiting
   * @param usedBlocks KV blocks in use after scheduling
   */
  public record Iteration(
      long startNanos,
      long endNanos,
      int tokens,
      int decodeSequences,
      int prefillSequences,
      int waiting,
      long usedBlocks) {

    public long durationNanos() {
      return endNanos - startNanos;
    }
  }

  private final Roofline roofline;
  private final Listener listener;
  private final int blockTokens;
  private final Map<Long, EngineSequence> byId = new HashMap<>();
  private final List<EngineSequence> running = new ArrayList<>();
  private final ArrayDeque<EngineSequence> waiting = new ArrayDeque<>();
  private final List<EngineSequence> batch = new ArrayList<>();
  private final KvBlockPool pool;
  private final boolean prefixCaching;
  private final boolean prefillFirst;
  private final boolean reserveFull;
  private final Role role;
  /** PREFILL: finished prompts whose KV waits for its transfer to a decode instance. */
  private final Map<Long, EngineSequence> held = new HashMap<>();
  /** DECODE: handed-off sequences whose blocks are taken and whose KV is still on its way. */
  private final Map<Long, EngineSequence> incoming = new HashMap<>();
  private long freeAtNanos = Long.MIN_VALUE;
  private long preemptions;
  private long iterations;
  private long admittedPromptTokens;
  private long cachedPromptTokens;
  private CostTotals costs = CostTotals.ZERO;
  private final Variation.Draws iterationFactors;
  private final EnergyMeter energy;

  public BatchEngine(EngineConfig config, Listener listener) {
    this(config, listener, Variation.NONE);
  }

  /**
   * An engine whose iteration times scatter around the cost model's by {@code variation}'s
   * log-normal factor of mean 1 ({@link Variation#NONE}: exact). Arrival delays are the caller's.
   */
  public BatchEngine(EngineConfig config, Listener listener, Variation variation) {
    this(config, listener, variation, Role.MIXED);
  }

  /**
   * What an instance serves. MIXED: whole requests (the default). PREFILL: prompts only, each
   * prefilled whole (chunked prefill off; an iteration batches prompts while they fit the token
   * budget, a longer one runs alone), emitting token 0 and keeping the KV cache until {@link
   * #releaseHeld}. DECODE: sequences handed over with their prompt's KV ({@link #acceptHandoff},
   * {@link #land}).
   */
  enum Role {
    MIXED,
    PREFILL,
    DECODE
  }

  BatchEngine(EngineConfig config, Listener listener, Variation variation, Role role) {
    this.role = role;
    this.iterationFactors = variation.iterationFactors();
    this.roofline = new Roofline(config);
    this.listener = listener;
    this.blockTokens = config.blockTokens();
    this.pool = new KvBlockPool(roofline.kvCapacityBlocks());
    this.prefixCaching = config.prefixCaching();
    this.prefillFirst = config.profile().scheduling() == EngineProfile.Scheduling.PREFILL_FIRST;
    this.reserveFull = config.profile().admission() == EngineProfile.Admission.RESERVE_FULL;
    this.energy = GpuPower.of(config.gpu().id())
        .map(p -> new EnergyMeter(p, config.tensorParallel(), config.overlapExponent()))
        .orElse(null);
  }

  /** The GPUs' energy so far ({@link GpuPower}); null when the GPU preset has no power data. */
  public EnergyMeter energy() {
    return energy;
  }

  public Roofline roofline() {
    return roofline;
  }

  /**
   * Queues a request that arrived at {@code arrivalNanos}. Submit in arrival order, and before
   * {@link #advanceTo} passes the arrival; a later submission joins the next iteration composed.
   *
   * @throws IllegalArgumentException when the ids repeats, lengths are not ≥ 1, or prompt +
   *     output exceed the whole KV cache (it could never run; vLLM refuses such a context length)
   */
  public void submit(long id, int promptTokens, int outputTokens, long arrivalNanos) {
    submit(id, promptTokens, outputTokens, arrivalNanos, null);
  }

  /**
   * Queues a request whose prompt content is identified by {@code prompt} (null: unique, never
   * shared), so that its leading blocks can be served from the prefix cache when caching is on.
   * Hashes beyond {@code promptTokens} are ignored.
   *
   * @throws IllegalArgumentException as {@link #submit(long, int, int, long)}, or when the
   *     hashes were cut at another block size than the engine's
   */
  public void submit(
      long id, int promptTokens, int outputTokens, long arrivalNanos, BlockHashes prompt) {
    if (prompt != null && prompt.blockTokens() != blockTokens) {
      throw new IllegalArgumentException(
          "prompt hashed in blocks of " + prompt.blockTokens() + " tokens, the engine's are "
              + blockTokens);
    }
    if (promptTokens < 1 || outputTokens < 1) {
      throw new IllegalArgumentException("prompt and output tokens must be >= 1");
    }
    if ((long) promptTokens + outputTokens > roofline.maxSequenceTokens()) {
      throw new IllegalArgumentException(
          "prompt + output = " + ((long) promptTokens + outputTokens)
              + " tokens exceed the KV cache of " + roofline.maxSequenceTokens() + " tokens");
    }
    BlockHashes hashes =
        prefixCaching && prompt != null && Math.min(prompt.fullBlocks(), promptTokens / blockTokens) > 0
            ? prompt
            : null;
    EngineSequence s = new EngineSequence(id, promptTokens, outputTokens, arrivalNanos, hashes);
    if (byId.putIfAbsent(id, s) != null) {
      throw new IllegalArgumentException("sequence " + id + " already submitted");
    }
    waiting.addLast(s);
  }

  /** Removes a sequence (client gone), freeing its blocks; false when it is not here (done). */
  public boolean cancel(long id) {
    EngineSequence s = byId.remove(id);
    if (s == null) {
      return false;
    }
    if (!running.remove(s) && !waiting.remove(s) && held.remove(id) == null) {
      incoming.remove(id);
    }
    release(s);
    return true;
  }

  /** Whether any sequence is running or waiting. */
  public boolean hasWork() {
    return !running.isEmpty() || !waiting.isEmpty();
  }

  /**
   * When the next iteration starts: the end of the last one, or, when idle, the first waiting
   * arrival if later. Only meaningful when {@link #hasWork()}.
   */
  public long nextStartNanos() {
    if (running.isEmpty() && !waiting.isEmpty()) {
      return Math.max(freeAtNanos, waiting.peekFirst().arrivalNanos);
    }
    return freeAtNanos;
  }

  /** The end of the last iteration composed ({@code Long.MIN_VALUE} before the first). */
  public long lastEndNanos() {
    return freeAtNanos;
  }

  /** Runs every iteration that starts at or before {@code nanos}. */
  public void advanceTo(long nanos) {
    while (hasWork() && nextStartNanos() <= nanos) {
      step();
    }
  }

  /**
   * Composes and runs the next iteration at {@link #nextStartNanos()}; null, and nothing changes,
   * when a disaggregated pool's blocks are all held for transfers and nothing fits.
   *
   * @throws IllegalStateException when there is no work
   */
  public Iteration step() {
    if (!hasWork()) {
      throw new IllegalStateException("no work");
    }
    long start = nextStartNanos();
    batch.clear();
    // SGLang's prefill-first policy: prefill when a prompt can make progress, else decode all.
    if (!prefillFirst || !compose(start, true)) {
      compose(start, false);
    }
    if (batch.isEmpty() && (!held.isEmpty() || !incoming.isEmpty())) {
      return null; // a disaggregated pool waits for a transfer to free or bring its blocks
    }
    if (batch.isEmpty()) {
      throw new IllegalStateException("nothing schedulable: " + waiting.size() + " waiting");
    }
    return run(start);
  }

  /**
   * Fills {@link #batch} for an iteration starting at {@code start}: running sequences first, in
   * admission order (only prefilling ones when {@code prefillOnly}), then waiting ones while the
   * budget, max_num_seqs and free blocks allow. Returns whether anything was scheduled.
   */
  private boolean compose(long start, boolean prefillOnly) {
    int budget = roofline.config().schedulerMaxBatchedTokens();
    boolean preempted = false;
    for (int i = 0; i < running.size() && budget > 0; i++) {
      EngineSequence s = running.get(i);
      if (prefillOnly && s.computed >= s.promptTokens) {
        continue;
      }
      int n = Math.min(s.pending(), budget);
      // speculative decoding reserves the verify pass's 1 + K positions (vLLM's lookahead slots)
      int positions = n == 1 && s.computed >= s.promptTokens ? lookahead(s) : n;
      long need = Math.max(0, blocksFor(s.computed + positions) - s.blocks);
      while (need > pool.free() && running.get(running.size() - 1) != s) {
        preempt(running.get(running.size() - 1), start);
        preempted = true;
      }
      if (need > pool.free()) {
        preempt(s, start); // s itself is the newest: it waits for room
        preempted = true;
        break;
      }
      allocate(s, n, need);
      budget -= n;
    }
    while (!preempted
        && budget > 0
        && !waiting.isEmpty()
        && running.size() < roofline.config().schedulerMaxNumSeqs()) {
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
    int hit = 0;
    if (s.hashes != null) {
      int limit = (s.promptTokens + s.generated - 1) / blockTokens; // one token is computed
      hit = pool.match(s.hashes, Math.min(s.cacheableBlocks, limit));
    }
    int whole = s.pending() - hit * blockTokens;
    if (role == Role.PREFILL && whole > budget && !batch.isEmpty()) {
      return false; // chunked prefill off: the prompt waits for an iteration with room for it whole
    }
    int n = role == Role.PREFILL ? whole : Math.min(whole, budget);
    long upTo = reserveFull ? (long) s.promptTokens + s.outputTokens : (long) hit * blockTokens + n;
    long need = blocksFor(upTo) - hit;
    if (need + (hit > 0 ? pool.lastEvictable() : 0) > pool.free()) {
      return false;
    }
    waiting.pollFirst();
    running.add(s);
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
    allocate(s, n, need);
    return true;
  }

  private void allocate(EngineSequence s, int n, long blocks) {
    s.blocks += blocks;
    pool.take(blocks);
    s.scheduled = n;
    batch.add(s);
    if (s.hashes != null) {
      // prompt blocks this iteration fills become cached (vLLM caches at scheduling time)
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

  /** Gives back every block {@code s} holds: cached ones last block first, then private ones. */
  private void release(EngineSequence s) {
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

  private void preempt(EngineSequence s, long atNanos) {
    running.remove(s);
    batch.remove(s);
    release(s);
    s.computed = 0;
    s.scheduled = 0;
    waiting.addFirst(s);
    preemptions++;
    listener.preempted(s.id, atNanos);
  }

  private Iteration run(long start) {
    int tokens = 0;
    int decode = 0;
    int samples = 0;
    double pairs = 0;
    long context = 0;
    Speculation spec = roofline.config().speculation();
    for (EngineSequence s : batch) {
      int n = s.scheduled;
      boolean decoding = n == 1 && s.computed >= s.promptTokens;
      if (decoding && spec.enabled()) {
        n = spec.positionsPerStep(); // the verify pass: the last token and K drafts
        samples += n - 1;
      }
      tokens += n;
      decode += decoding ? 1 : 0;
      samples += s.computed + s.scheduled == s.promptTokens + s.generated ? 1 : 0;
      // token j of the chunk sits at position computed + j and attends to computed + j + 1 tokens
      pairs += (double) n * s.computed + (double) n * (n + 1) / 2;
      context += s.computed;
    }
    Roofline.Cost cost = roofline.cost(tokens, pairs, context, batch.size(), decode, samples);
    costs = costs.plus(cost, batch.size());
    long end = start + iterationFactors.scale(cost.totalNanos());
    if (energy != null) {
      energy.iteration(start, end, cost);
    }
    long used = pool.capacity() - pool.free();
    for (EngineSequence s : batch) {
      boolean decoding = s.scheduled == 1 && s.computed >= s.promptTokens;
      s.computed += s.scheduled;
      s.scheduled = 0;
      if (s.pending() == 0) {
        listener.token(s.id, s.generated, end);
        s.generated++;
        if (decoding && spec.enabled()) {
          emitAccepted(s, spec, end);
        }
        if (s.generated == s.outputTokens) {
          running.remove(s);
          if (role == Role.PREFILL) {
            held.put(s.id, s); // its KV stays until the transfer to a decode instance ends
          } else {
            byId.remove(s.id);
            release(s);
          }
        }
      }
    }
    freeAtNanos = end;
    iterations++;
    return new Iteration(start, end, tokens, decode, batch.size() - decode, waiting.size(), used);
  }

  /**
   * The accepted drafts of a speculative step, after its first token: the sequence's credit grows
   * by 1 + Σ r^i and it emits the whole part (the first token included), at most what it still
   * owes; each accepted draft's KV was computed in the verify pass.
   */
  private void emitAccepted(EngineSequence s, Speculation spec, long end) {
    s.specCredit += spec.tokensPerStep();
    int emit = Math.max(1, (int) Math.floor(s.specCredit + 1e-9));
    s.specCredit = Math.max(0, s.specCredit - emit);
    for (int i = 1; i < emit && s.generated < s.outputTokens; i++) {
      listener.token(s.id, s.generated, end);
      s.generated++;
      s.computed++;
    }
  }

  /** Positions a decoding sequence's step needs KV blocks for: 1, or 1 + K when speculating. */
  private int lookahead(EngineSequence s) {
    Speculation spec = roofline.config().speculation();
    int owed = s.outputTokens - s.generated;
    return spec.enabled() ? Math.min(spec.positionsPerStep(), Math.max(1, owed)) : 1;
  }

  /**
   * PREFILL: frees the KV cache of a finished prompt once its transfer ended (or its request
   * needs no decode); false when it is not held here.
   */
  boolean releaseHeld(long id) {
    EngineSequence s = held.remove(id);
    if (s == null) {
      return false;
    }
    byId.remove(id);
    release(s);
    return true;
  }

  /** PREFILL: finished prompts holding their KV cache. */
  int heldSequences() {
    return held.size();
  }

  /**
   * DECODE: takes the blocks for a handed-off sequence's prompt and first token (the one the
   * prefill instance sampled), when they and a sequence slot are free; its KV is then on its way
   * and it runs from {@link #land}. False, and nothing changes, when the instance is full.
   */
  boolean acceptHandoff(long id, int promptTokens, int outputTokens, long arrivalNanos) {
    long need = blocksFor((long) promptTokens + 1);
    if (running.size() + waiting.size() + incoming.size() >= roofline.config().schedulerMaxNumSeqs()
        || need > pool.free()) {
      return false;
    }
    EngineSequence s = new EngineSequence(id, promptTokens, outputTokens, arrivalNanos, null);
    if (byId.putIfAbsent(id, s) != null) {
      throw new IllegalArgumentException("sequence " + id + " already submitted");
    }
    s.admittedOnce = true;
    s.computed = promptTokens;
    s.generated = 1; // token 0 came from the prefill instance; its KV is computed in the first step
    s.blocks = need;
    pool.take(need);
    incoming.put(id, s);
    return true;
  }

  /** DECODE: the KV of an accepted handoff arrived at {@code atNanos}; it decodes from there. */
  void land(long id, long atNanos) {
    EngineSequence s = incoming.remove(id);
    if (s == null) {
      throw new IllegalStateException("no handoff " + id + " on its way");
    }
    if (running.isEmpty()) {
      freeAtNanos = Math.max(freeAtNanos, atNanos); // an idle instance starts when the KV is there
    }
    running.add(s);
  }

  /** The next iteration starts at {@code nanos} or later (a pool that waited for a transfer). */
  void startNotBefore(long nanos) {
    freeAtNanos = Math.max(freeAtNanos, nanos);
  }

  /** KV-cache blocks in use (held by sequences or reserved for handoffs on their way). */
  public long usedBlocks() {
    return pool.capacity() - pool.free();
  }

  private long blocksFor(long tokens) {
    return roofline.kvBlocksFor(tokens);
  }

  /** Sequences running now. */
  public int running() {
    return running.size();
  }

  /** Sequences waiting (never admitted, or preempted). */
  public int waiting() {
    return waiting.size();
  }

  /** KV-cache blocks in all. */
  public long totalBlocks() {
    return roofline.kvCapacityTokens() / blockTokens;
  }

  /** Free KV-cache blocks: empty ones and cached ones no sequence holds (evictable). */
  public long freeBlocks() {
    return pool.free();
  }

  /** KV-cache blocks holding cached prompt content, held or evictable. */
  public long cachedBlocks() {
    return pool.cachedBlocks();
  }

  /** Cached blocks evicted so far to make room. */
  public long evictions() {
    return pool.evictions();
  }

  /** Prompt tokens of every sequence admitted so far, counted at its first admission. */
  public long admittedPromptTokens() {
    return admittedPromptTokens;
  }

  /** Of {@link #admittedPromptTokens()}, those served from the prefix cache (no prefill). */
  public long cachedPromptTokens() {
    return cachedPromptTokens;
  }

  /** Preemptions so far. */
  public long preemptions() {
    return preemptions;
  }

  /** Iterations run so far. */
  public long iterations() {
    return iterations;
  }

  /** Where the iterations' time went, so far. */
  public CostTotals costs() {
    return costs;
  }
}
