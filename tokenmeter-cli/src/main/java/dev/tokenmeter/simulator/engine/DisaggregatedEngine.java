package dev.tokenmeter.simulator.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;

/**
 * Disaggregated prefill and decode in virtual time: a prefill instance that runs prompts only, a
 * decode instance that runs decode steps only, and the KV cache of each request moving from one to
 * the other over a link, as DistServe (Zhong et al., OSDI'24), Splitwise (Patel et al., ISCA'24),
 * Mooncake, vLLM's and SGLang's disaggregated prefill and NVIDIA Dynamo serve.
 *
 * <pre>{@code
 * DisaggregatedEngine e = new DisaggregatedEngine(DisaggregatedEngine.Pools.of(prefill, decode,
 *     null), (id, index, atNanos) -> ...);
 * e.submit(1, 1024, 256, 0);
 * while (e.hasWork()) { long t = e.nextEventNanos(); e.finishDue(t); e.startDue(t); }
 * }</pre>
 *
 * <pre>
 * design notes
 * - Each pool is one engine instance over its GPUs (tensor parallel, or data-parallel attention
 *   and expert parallelism as its EngineConfig says), each with its own KV cache. Several
 *   instances per pool and a router between them are not modelled.
 * - Prefill (BatchEngine.Role.PREFILL): chunked prefill off, prompts batched first come first
 *   served while their tokens fit the profile's token budget (one longer prompt runs alone). The
 *   iteration that completes a prompt samples token 0; the prompt's KV stays in the prefill pool
 *   until its transfer has ended (DistServe's pull model: the prefill pool's memory is the queue).
 * - Handoff: finished prompts queue first come first served for the decode pool, which takes one
 *   when blocks for its prompt + 1 tokens and a sequence slot are free (vLLM's NixlConnector and
 *   Dynamo allocate on the decode side before they read the KV). A full decode pool queues the
 *   handoff, and the KV it holds in the prefill pool keeps new prompts out there: back-pressure.
 * - Transfer: max(prefill, decode) KV bytes per token and GPU × prompt tokens, at the link's
 *   bandwidth per GPU (every GPU moves its own shard over its own link, at once); transfers share
 *   the link first come first served. No fixed latency per transfer (NIXL's or Mooncake's
 *   handshake, the router's hop): see docs/PLANNER.md.
 * - First token: sampled by the prefill instance and sent to the client when the transfer ends,
 *   as SGLang (its bootstrap carries the prefill's output id to the decode server), TensorRT-LLM
 *   (the context server returns the first token) and Dynamo stream it. TTFT = prefill queue +
 *   prefill + handoff queue + transfer. Its KV is computed by the decode instance's first step,
 *   which emits token 1. (vLLM's P/D proxy instead discards the prefill's token and the decode
 *   instance recomputes it: one decode step more in TTFT.)
 * - Decode (BatchEngine.Role.DECODE): decode-only iterations, no prompt in them, so TPOT carries
 *   no prefill interference. A preempted sequence recomputes its context on the decode instance.
 * - Events of one instant: iterations that end and transfers that land first (finishDue), then
 *   handoffs and the iterations that start (startDue), so that a request submitted in between
 *   joins the iteration starting then.
 * </pre>
 *
 * <p>Not thread-safe: confine it to one thread.
 */
public final class DisaggregatedEngine {

  /**
   * The two pools and the link between them.
   *
   * @param prefill the prefill instance's deployment (its GPUs: {@link EngineConfig#tensorParallel})
   * @param decode the decode instance's deployment
   * @param transferBytesPerSecond the link's bandwidth per GPU and direction, bytes/s
   * @param link what the link is, for the report ("NVLink 4", "400 Gb/s RDMA")
   */
  public record Pools(
      EngineConfig prefill, EngineConfig decode, double transferBytesPerSecond, String link) {
    public Pools {
      Objects.requireNonNull(prefill, "prefill");
      Objects.requireNonNull(decode, "decode");
      Objects.requireNonNull(link, "link");
      if (!(transferBytesPerSecond > 0)) {
        throw new IllegalArgumentException("the KV transfer bandwidth must be > 0");
      }
      if (!prefill.model().equals(decode.model())) {
        throw new IllegalArgumentException("prefill and decode pools must serve the same model");
      }
    }

    /**
     * The pools with the default link when {@code bytesPerSecond} is null: the GPU's interconnect
     * (NVLink) when both pools fit one link domain (8 GPUs, 72 for GB200 NVL72), else the GPU's
     * 400 Gb/s network card over RDMA ({@link Parallelism#NIC_BYTES_PER_SECOND}).
     */
    public static Pools of(EngineConfig prefill, EngineConfig decode, Double bytesPerSecond) {
      if (bytesPerSecond != null) {
        return new Pools(prefill, decode, bytesPerSecond, "given");
      }
      GpuSpec gpu = prefill.gpu();
      int gpus = prefill.tensorParallel() + decode.tensorParallel();
      if (gpus <= Parallelism.linkDomainGpus(gpu) && gpu.id().equals(decode.gpu().id())) {
        return new Pools(prefill, decode, gpu.interconnectBytesPerSecond(), gpu.interconnect());
      }
      return new Pools(prefill, decode, Parallelism.NIC_BYTES_PER_SECOND, "400 Gb/s RDMA");
    }

    /** KV bytes one prompt token moves over one GPU's link: the larger pool's shard per GPU. */
    public double transferBytesPerToken() {
      return Math.max(
          new Roofline(prefill).kvBytesPerTokenPerGpu(), new Roofline(decode).kvBytesPerTokenPerGpu());
    }
  }

  /** One pool's figures so far. */
  public record PoolStats(
      long iterations, long busyNanos, long kvBlocks, double kvBlockNanos, long peakKvBlocks) {
    /** Busy time over {@code elapsedNanos}, in [0, 1]. */
    public double utilization(long elapsedNanos) {
      return elapsedNanos <= 0 ? 0 : Math.min(1, (double) busyNanos / elapsedNanos);
    }

    /** Mean KV-cache blocks in use while busy over the blocks there are, in [0, 1]. */
    public double meanKvUsage() {
      return busyNanos == 0 || kvBlocks == 0 ? 0 : kvBlockNanos / busyNanos / kvBlocks;
    }

    /** Peak KV-cache blocks in use over the blocks there are, in [0, 1]. */
    public double peakKvUsage() {
      return kvBlocks == 0 ? 0 : (double) peakKvBlocks / kvBlocks;
    }
  }

  /**
   * Both pools' figures over a stretch of virtual time: cumulative counts and times, peaks since
   * the previous {@link #window()}. {@link #minus} turns two into the stretch between them.
   *
   * @param handoffs requests whose KV moved to the decode pool
   * @param handoffWaitNanos Σ time finished prompts waited for room in the decode pool
   * @param transferNanos Σ time their KV took over the link
   * @param maxHandoffQueue the most finished prompts left waiting for room in the decode pool
   * @param maxPrefillQueue the most requests waiting for the prefill instance after a prefill
   *     iteration was composed
   */
  public record Window(PoolStats prefill, PoolStats decode, long handoffs, long handoffWaitNanos,
      long transferNanos, int maxHandoffQueue, int maxPrefillQueue) {
    /** This window since {@code earlier}: counts and times subtracted, peaks kept. */
    public Window minus(Window earlier) {
      return new Window(minus(prefill, earlier.prefill), minus(decode, earlier.decode),
          handoffs - earlier.handoffs, handoffWaitNanos - earlier.handoffWaitNanos,
          transferNanos - earlier.transferNanos, maxHandoffQueue, maxPrefillQueue);
    }

    private static PoolStats minus(PoolStats a, PoolStats b) {
      return new PoolStats(a.iterations() - b.iterations(), a.busyNanos() - b.busyNanos(), a.kvBlocks(),
          a.kvBlockNanos() - b.kvBlockNanos(), a.peakKvBlocks());
    }

    /** Mean wait for the decode pool, ms (0 without handoffs). */
    public double meanHandoffWaitMs() {
      return handoffs == 0 ? 0 : handoffWaitNanos / 1e6 / handoffs;
    }

    /** Mean KV transfer time, ms (0 without handoffs). */
    public double meanTransferMs() {
      return handoffs == 0 ? 0 : transferNanos / 1e6 / handoffs;
    }
  }

  private record Transfer(long id, long landNanos) {}

  private final Pools pools;
  private final BatchEngine.Listener listener;
  private final BatchEngine prefill;
  private final BatchEngine decode;
  private final double transferBytesPerToken;
  private final Map<Long, int[]> lengths = new HashMap<>(); // id -> {prompt, output}
  private final ArrayDeque<Long> handoffs = new ArrayDeque<>();
  private final Map<Long, Long> readyAt = new HashMap<>(); // id -> prefill end (handoff queue entry)
  private final PriorityQueue<Transfer> transfers =
      new PriorityQueue<>((a, b) -> a.landNanos != b.landNanos
          ? Long.compare(a.landNanos, b.landNanos) : Long.compare(a.id, b.id));
  private final List<Long> prefilled = new ArrayList<>();
  private final List<long[]> decoded = new ArrayList<>(); // {id, index}
  private BatchEngine.Iteration prefillInFlight;
  private BatchEngine.Iteration decodeInFlight;
  private long linkFreeAtNanos = Long.MIN_VALUE;
  /** An instance whose waiting work cannot start until a transfer frees or brings blocks. */
  private final boolean[] blocked = new boolean[2];
  private final long[] busy = new long[2];
  private final double[] kvBlockNanos = new double[2];
  private final long[] peakBlocks = new long[2];
  private long handoffsDone;
  private long handoffWaitNanos;
  private long transferNanos;
  private double transferredBytes;
  private int maxHandoffQueue;
  private int maxPrefillQueue;

  /**
   * @param pools the two instances and the link
   * @param listener receives the tokens the client sees, at the time it sees them
   * @param variation iteration-time scatter of both instances ({@link Variation#NONE}: exact)
   */
  public DisaggregatedEngine(Pools pools, BatchEngine.Listener listener, Variation variation) {
    this.pools = pools;
    this.listener = Objects.requireNonNull(listener, "listener");
    this.prefill = new BatchEngine(pools.prefill(), new BatchEngine.Listener() {
      @Override
      public void token(long id, int index, long atNanos) {
        prefilled.add(id);
      }

      @Override
      public void firstScheduled(long id, long atNanos, int cachedPromptTokens) {
        listener.firstScheduled(id, atNanos, cachedPromptTokens);
      }
    }, variation, BatchEngine.Role.PREFILL);
    this.decode = new BatchEngine(pools.decode(), (id, index, atNanos) -> decoded.add(new long[] {id, index}),
        variation, BatchEngine.Role.DECODE);
    this.transferBytesPerToken = pools.transferBytesPerToken();
  }

  public DisaggregatedEngine(Pools pools, BatchEngine.Listener listener) {
    this(pools, listener, Variation.NONE);
  }

  public Pools pools() {
    return pools;
  }

  /** The prefill instance (its cost model, KV cache and counters). */
  public BatchEngine prefill() {
    return prefill;
  }

  /** The decode instance. */
  public BatchEngine decode() {
    return decode;
  }

  /** Nanoseconds one request's KV takes over the link: its prompt's shard / bandwidth. */
  public long transferNanos(int promptTokens) {
    return Math.round(promptTokens * transferBytesPerToken / pools.transferBytesPerSecond() * 1e9);
  }

  /** The longest prompt + output both instances' KV caches can hold. */
  public long maxContextTokens() {
    return Math.min(prefill.roofline().maxSequenceTokens(), decode.roofline().maxSequenceTokens());
  }

  /**
   * Queues a request arrived at {@code arrivalNanos} for the prefill instance.
   *
   * @throws IllegalArgumentException as {@link BatchEngine#submit}, or when prompt + output exceed
   *     the decode instance's KV cache
   */
  public void submit(long id, int promptTokens, int outputTokens, long arrivalNanos, BlockHashes prompt) {
    if ((long) promptTokens + outputTokens > decode.roofline().maxSequenceTokens()) {
      throw new IllegalArgumentException("prompt + output = " + ((long) promptTokens + outputTokens)
          + " tokens exceed the decode pool's KV cache of " + decode.roofline().maxSequenceTokens() + " tokens");
    }
    prefill.submit(id, promptTokens, 1, arrivalNanos, prompt);
    lengths.put(id, new int[] {promptTokens, outputTokens});
  }

  public void submit(long id, int promptTokens, int outputTokens, long arrivalNanos) {
    submit(id, promptTokens, outputTokens, arrivalNanos, null);
  }

  /** Removes a request wherever it is (client gone), freeing its KV in both pools. */
  public boolean cancel(long id) {
    if (lengths.remove(id) == null) {
      return false;
    }
    prefill.cancel(id);
    decode.cancel(id);
    handoffs.remove(id);
    readyAt.remove(id);
    transfers.removeIf(t -> t.id == id);
    blocked[0] = false;
    blocked[1] = false;
    return true;
  }

  /** Whether any request is queued, running, handed off or on its way. */
  public boolean hasWork() {
    return prefillInFlight != null || decodeInFlight != null || prefill.hasWork() || decode.hasWork()
        || !handoffs.isEmpty() || !transfers.isEmpty();
  }

  /** When something next happens: an iteration ends or starts, or a transfer lands. */
  public long nextEventNanos() {
    long t = Long.MAX_VALUE;
    t = Math.min(t, prefillInFlight != null ? prefillInFlight.endNanos()
        : prefill.hasWork() && !blocked[0] ? prefill.nextStartNanos() : Long.MAX_VALUE);
    t = Math.min(t, decodeInFlight != null ? decodeInFlight.endNanos()
        : decode.hasWork() && !blocked[1] ? decode.nextStartNanos() : Long.MAX_VALUE);
    return transfers.isEmpty() ? t : Math.min(t, transfers.peek().landNanos);
  }

  /**
   * Ends what is due at {@code nanos}: iterations ending then (their tokens to the listener) and
   * transfers landing then (token 0 to the listener, the KV freed in the prefill pool).
   */
  public void finishDue(long nanos) {
    if (prefillInFlight != null && prefillInFlight.endNanos() <= nanos) {
      long end = prefillInFlight.endNanos();
      prefillInFlight = null;
      for (long id : prefilled) {
        int[] len = lengths.get(id);
        if (len == null) {
          continue; // cancelled while its prompt was in the iteration
        }
        if (len[1] == 1) { // nothing to decode: the prefill's token is the answer
          prefill.releaseHeld(id);
          blocked[0] = false;
          lengths.remove(id);
          listener.token(id, 0, end);
        } else {
          handoffs.addLast(id);
          readyAt.put(id, end);
        }
      }
      prefilled.clear();
    }
    if (decodeInFlight != null && decodeInFlight.endNanos() <= nanos) {
      long end = decodeInFlight.endNanos();
      decodeInFlight = null;
      for (long[] t : decoded) {
        int[] len = lengths.get(t[0]);
        if (len != null) {
          listener.token(t[0], (int) t[1], end);
          if (t[1] == len[1] - 1) {
            lengths.remove(t[0]);
          }
        }
      }
      decoded.clear();
    }
    while (!transfers.isEmpty() && transfers.peek().landNanos <= nanos) {
      Transfer t = transfers.poll();
      prefill.releaseHeld(t.id);
      blocked[0] = false;
      blocked[1] = false;
      decode.land(t.id, t.landNanos);
      listener.token(t.id, 0, t.landNanos);
    }
  }

  /** Starts what is due at {@code nanos}: handoffs the decode pool has room for, and iterations. */
  public void startDue(long nanos) {
    // before the decode step is composed: the blocks of sequences whose last token it computes are
    // free only once it has ended
    handOff(nanos);
    if (decodeInFlight == null && decode.hasWork() && !blocked[1] && decode.nextStartNanos() <= nanos) {
      decode.startNotBefore(nanos);
      decodeInFlight = account(1, decode.step());
      blocked[1] = decodeInFlight == null;
    }
    if (prefillInFlight == null && prefill.hasWork() && !blocked[0] && prefill.nextStartNanos() <= nanos) {
      prefill.startNotBefore(nanos);
      prefillInFlight = account(0, prefill.step());
      blocked[0] = prefillInFlight == null;
      maxPrefillQueue = Math.max(maxPrefillQueue, prefill.waiting());
    }
  }

  /** Starts the transfers of queued handoffs, first come first served, while the decode pool takes them. */
  private void handOff(long nanos) {
    Iterator<Long> it = handoffs.iterator();
    while (it.hasNext()) {
      long id = it.next();
      int[] len = lengths.get(id);
      if (!decode.acceptHandoff(id, len[0], len[1], nanos)) {
        // first come first served: the head waits for room, and so does everyone behind it
        maxHandoffQueue = Math.max(maxHandoffQueue, handoffs.size());
        return;
      }
      it.remove();
      long start = Math.max(nanos, linkFreeAtNanos);
      long took = transferNanos(len[0]);
      linkFreeAtNanos = start + took;
      transfers.add(new Transfer(id, start + took));
      handoffsDone++;
      handoffWaitNanos += nanos - readyAt.remove(id);
      transferNanos += took;
      transferredBytes += len[0] * transferBytesPerToken;
    }
  }

  private BatchEngine.Iteration account(int pool, BatchEngine.Iteration it) {
    if (it == null) {
      return null;
    }
    BatchEngine e = pool == 0 ? prefill : decode;
    long used = e.usedBlocks();
    busy[pool] += it.durationNanos();
    kvBlockNanos[pool] += (double) used * it.durationNanos();
    peakBlocks[pool] = Math.max(peakBlocks[pool], used);
    return it;
  }

  /** The prefill pool's figures so far. */
  public PoolStats prefillStats() {
    return stats(0, prefill);
  }

  /** The decode pool's figures so far. */
  public PoolStats decodeStats() {
    return stats(1, decode);
  }

  private PoolStats stats(int pool, BatchEngine e) {
    return new PoolStats(e.iterations(), busy[pool], e.roofline().kvCapacityBlocks(), kvBlockNanos[pool],
        peakBlocks[pool]);
  }

  /** The figures so far; the peaks start again from here. */
  public Window window() {
    Window w = new Window(prefillStats(), decodeStats(), handoffsDone, handoffWaitNanos, transferNanos,
        maxHandoffQueue, maxPrefillQueue);
    peakBlocks[0] = prefill.usedBlocks();
    peakBlocks[1] = decode.usedBlocks();
    maxHandoffQueue = handoffs.size();
    maxPrefillQueue = prefill.waiting();
    return w;
  }

  /** Requests whose KV moved to the decode pool so far. */
  public long handoffs() {
    return handoffsDone;
  }

  /** Mean time a finished prompt waited for room in the decode pool, nanoseconds (0 before any). */
  public double meanHandoffWaitNanos() {
    return handoffsDone == 0 ? 0 : (double) handoffWaitNanos / handoffsDone;
  }

  /** Mean time a request's KV took over the link (without waiting for the link), nanoseconds. */
  public double meanTransferNanos() {
    return handoffsDone == 0 ? 0 : (double) transferNanos / handoffsDone;
  }

  /** KV bytes moved per GPU link so far. */
  public double transferredBytes() {
    return transferredBytes;
  }

  /** The most finished prompts left waiting for room in the decode pool at once (since the last window). */
  public int maxHandoffQueue() {
    return maxHandoffQueue;
  }

  /** Requests waiting for the decode pool now. */
  public int handoffQueue() {
    return handoffs.size();
  }
}
