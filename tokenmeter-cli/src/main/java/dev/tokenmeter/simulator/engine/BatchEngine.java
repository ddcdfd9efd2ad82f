package dev.tokenmeter.simulator.engine;

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
 * - Composition, admission and preemption are the Scheduler's (vLLM V1's scheduler, SGLang's
 *   prefill-first, TensorRT-LLM's reservation at admission); each sequence's KV blocks and the
 *   prefix cache over them are SequenceBlocks'; a disaggregated pool's transfers are Handoffs'.
 * - A sequence must compute prompt + generated tokens before it can emit the next token: the
 *   iteration that completes its prompt emits token 0, each later one token more. Tokens are
 *   emitted at the iteration's end. A sequence leaves after its last token, freeing its blocks.
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
  private final SequenceBlocks kv;
  private final Scheduler scheduler;
  private final Handoffs handoffs;
  private final boolean prefixCaching;
  private final Role role;
  private long freeAtNanos = Long.MIN_VALUE;
  private long iterations;
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
    this.kv = new SequenceBlocks(roofline);
    this.scheduler = new Scheduler(config, kv, listener, role == Role.PREFILL);
    this.handoffs = new Handoffs(byId, kv, config.schedulerMaxNumSeqs());
    this.prefixCaching = config.prefixCaching();
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
    scheduler.enqueue(s);
  }

  /** Removes a sequence (client gone), freeing its blocks; false when it is not here (done). */
  public boolean cancel(long id) {
    EngineSequence s = byId.remove(id);
    if (s == null) {
      return false;
    }
    if (!scheduler.remove(s)) {
      handoffs.forget(id);
    }
    kv.release(s);
    return true;
  }

  /** Whether any sequence is running or waiting. */
  public boolean hasWork() {
    return scheduler.running() > 0 || scheduler.waiting() > 0;
  }

  /**
   * When the next iteration starts: the end of the last one, or, when idle, the first waiting
   * arrival if later. Only meaningful when {@link #hasWork()}.
   */
  public long nextStartNanos() {
    if (scheduler.running() == 0 && scheduler.waiting() > 0) {
      return Math.max(freeAtNanos, scheduler.firstWaitingArrivalNanos());
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
    if (!scheduler.compose(start)) {
      if (handoffs.pending()) {
        return null; // a disaggregated pool waits for a transfer to free or bring its blocks
      }
      throw new IllegalStateException("nothing schedulable: " + scheduler.waiting() + " waiting");
    }
    return run(start);
  }

  private Iteration run(long start) {
    int tokens = 0;
    int decode = 0;
    int samples = 0;
    double pairs = 0;
    long context = 0;
    Speculation spec = roofline.config().speculation();
    List<EngineSequence> batch = scheduler.batch();
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
    long used = kv.used();
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
          scheduler.finish(s);
          if (role == Role.PREFILL) {
            handoffs.hold(s); // its KV stays until the transfer to a decode instance ends
          } else {
            byId.remove(s.id);
            kv.release(s);
          }
        }
      }
    }
    freeAtNanos = end;
    iterations++;
    return new Iteration(
        start, end, tokens, decode, batch.size() - decode, scheduler.waiting(), used);
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

  /**
   * PREFILL: frees the KV cache of a finished prompt once its transfer ended (or its request
   * needs no decode); false when it is not held here.
   */
  boolean releaseHeld(long id) {
    return handoffs.releaseHeld(id);
  }

  /** PREFILL: finished prompts holding their KV cache. */
  int heldSequences() {
    return handoffs.heldSequences();
  }

  /**
   * DECODE: takes the blocks for a handed-off sequence's prompt and first token (the one the
   * prefill instance sampled), when they and a sequence slot are free; its KV is then on its way
   * and it runs from {@link #land}. False, and nothing changes, when the instance is full.
   */
  boolean acceptHandoff(long id, int promptTokens, int outputTokens, long arrivalNanos) {
    return handoffs.accept(id, promptTokens, outputTokens, arrivalNanos,
        scheduler.running() + scheduler.waiting());
  }

  /** DECODE: the KV of an accepted handoff arrived at {@code atNanos}; it decodes from there. */
  void land(long id, long atNanos) {
    EngineSequence s = handoffs.land(id);
    if (scheduler.running() == 0) {
      freeAtNanos = Math.max(freeAtNanos, atNanos); // an idle instance starts when the KV is there
    }
    scheduler.resume(s);
  }

  /** The next iteration starts at {@code nanos} or later (a pool that waited for a transfer). */
  void startNotBefore(long nanos) {
    freeAtNanos = Math.max(freeAtNanos, nanos);
  }

  /** KV-cache blocks in use (held by sequences or reserved for handoffs on their way). */
  public long usedBlocks() {
    return kv.used();
  }

  /** Sequences running now. */
  public int running() {
    return scheduler.running();
  }

  /** Sequences waiting (never admitted, or preempted). */
  public int waiting() {
    return scheduler.waiting();
  }

  /** KV-cache blocks in all. */
  public long totalBlocks() {
    return roofline.kvCapacityTokens() / blockTokens;
  }

  /** Free KV-cache blocks: empty ones and cached ones no sequence holds (evictable). */
  public long freeBlocks() {
    return kv.free();
  }

  /** KV-cache blocks holding cached prompt content, held or evictable. */
  public long cachedBlocks() {
    return kv.cachedBlocks();
  }

  /** Cached blocks evicted so far to make room. */
  public long evictions() {
    return kv.evictions();
  }

  /** Prompt tokens of every sequence admitted so far, counted at its first admission. */
  public long admittedPromptTokens() {
    return kv.admittedPromptTokens();
  }

  /** Of {@link #admittedPromptTokens()}, those served from the prefix cache (no prefill). */
  public long cachedPromptTokens() {
    return kv.cachedPromptTokens();
  }

  /** Preemptions so far. */
  public long preemptions() {
    return scheduler.preemptions();
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
