package dev.tokenmeter.simulator.engine;

/**
 * The cost model of one engine iteration, and the KV-cache capacity of a deployment. Immutable,
 * thread-safe; every figure is per GPU, the work of an iteration being split evenly over the
 * tensor-parallel GPUs.
 *
 * <pre>
 * design notes
 * - time = gpu + all-reduces + sampling + launches + iteration overhead + per-sequence
 *   overhead × sequences (see Cost), gpu = (c^k + m^k)^(1/k) with c = FLOPs / (peak × achievable
 *   share × MFU) and m = bytes / (bandwidth × MBU). The achievable share is the GPU's measured
 *   matmul ceiling (AchievableMatmul); MFU is the fitted share of it.
 * - k (the config's overlapExponent, Calibration.OVERLAP_EXPONENT) says how well an
 *   iteration's memory traffic hides under its math: k = ∞ is the plain roofline max(c, m),
 *   perfect overlap; k = 1 is none, c + m. Near the ridge point (c ≈ m: a 128-token prefill, a
 *   decode batch of a few hundred) real kernels reach neither ceiling: at c = m, k = 3 costs
 *   2^(1/3) = 1.26 × the larger term, while far from it (decode at batch 1, long prefills) the
 *   smaller term adds under 1%. k is chosen from {1, 2, 3, 4, ∞} by the accuracy fit's own
 *   objective (TPOT and throughput; not TTFT), each candidate at its own fixed point, and each
 *   held-out fold chooses its own on its training sources (docs/ACCURACY.md, "Against the
 *   targets").
 * - sampling: the sampler reads the FP32 logits the LM head wrote, full vocabulary per sampling
 *   sequence on every GPU (the logits are gathered): samples × vocab × 8 B of memory traffic.
 * - launches: a batch the engine profile runs as a CUDA graph costs one replay; any other launches
 *   its kernels one by one, a fixed cost per layer (EngineProfile).
 * - FLOPs = 2 × (active params − input embedding) × tokens (one multiply-add per weight per
 *   token; the embedding is a lookup; tied embeddings are the LM head's, multiplied) + attention,
 *   4 × layers × heads × headDim per (query token, attended token) pair (QKᵀ and AV); latent
 *   attention and sliding windows per ModelSpec.attentionFlops.
 * - bytes = weights read once per iteration (MoE: only the experts routed to; not the input
 *   embedding, a lookup; the LM head in BF16 for quantized weights; gpt-oss-style checkpoints
 *   quantize only their experts) + the KV cache of every scheduled sequence's context read once
 *   (sliding-window layers: at most the window) + the new tokens' KV written.
 * - all-reduces: two per layer (after attention and after the MLP) of tokens × hidden × 2 bytes,
 *   ring: latency + 2(N−1)/N × bytes / link bandwidth. None on one GPU.
 * - KV capacity = memory × utilisation − weights − reserve, per GPU, in whole blocks (MemoryPlan,
 *   which this class's memory methods expose).
 * </pre>
 */
public final class Roofline {
  private static final double NANOS_PER_SECOND = 1e9;

  /** FP32 logits written by the LM head and read by the sampler: 2 × 4 bytes per vocab entry. */
  static final double LOGIT_BYTES = 8;

  private final EngineConfig config;
  private final MemoryPlan memory;
  /** {@link MemoryPlan#kvBytesPerTokenPerGpu()}, read by every iteration's cost. */
  private final double kvBytesPerTokenPerGpu;
  private final double flopsPerSecondPerGpu;
  private final double bytesPerSecondPerGpu;
  /** The draft model's own cost model ({@link Speculation.Kind#DRAFT}); null otherwise. */
  private final Roofline draft;
  /** Data-parallel attention and expert parallelism's cost; null for plain tensor parallelism. */
  private final ParallelCost parallel;

  /**
   * @throws IllegalArgumentException when the weights and reserve leave no room for one block of
   *     KV cache on each GPU
   */
  public Roofline(EngineConfig config) {
    this.config = config;
    Parallelism parallelism = config.parallelism();
    parallelism.check(config.model(), config.tensorParallel());
    if (!parallelism.plain() && config.speculation().enabled()) {
      throw new IllegalArgumentException("speculative decoding with --dp-attention or"
          + " --expert-parallel is not modelled yet; drop one of them");
    }
    this.parallel = parallelism.plain() ? null : new ParallelCost(config);
    this.draft = draftRoofline(config);
    this.memory = new MemoryPlan(config, draft == null ? null : draft.memory);
    this.kvBytesPerTokenPerGpu = memory.kvBytesPerTokenPerGpu();
    this.flopsPerSecondPerGpu = config.gpu().peakFlopsPerSecond(config.weights())
        * AchievableMatmul.share(config.gpu(), config.weights()) * config.mfu();
    this.bytesPerSecondPerGpu = config.gpu().memoryBandwidthBytesPerSecond() * config.mbu();
  }

  public EngineConfig config() {
    return config;
  }

  /**
   * The fewest tensor-parallel GPUs (up to 64) on which this deployment has room for at least one
   * KV-cache block per GPU; -1 when even 64 are not enough.
   */
  public static int gpusNeeded(EngineConfig config) {
    return MemoryPlan.gpusNeeded(config);
  }

  /** The deployment's memory: weights, KV capacity, blocks per sequence. */
  MemoryPlan memory() {
    return memory;
  }

  /** Bytes of weights on each GPU. */
  public double weightBytesPerGpu() {
    return memory.weightBytesPerGpu();
  }

  /** Bytes of KV cache per token on each GPU. */
  public double kvBytesPerTokenPerGpu() {
    return kvBytesPerTokenPerGpu;
  }

  /**
   * Tokens the KV cache holds, all sequences together (a whole number of blocks). Under a windowed
   * cache ({@link EngineProfile#windowedKvCache()}) these are the full-attention layers' tokens; each
   * sequence also holds its sliding layers' window ({@link #kvBlocksFor}).
   */
  public long kvCapacityTokens() {
    return memory.kvCapacityTokens();
  }

  /**
   * KV-cache blocks a sequence of {@code tokens} holds: one per {@link EngineConfig#blockTokens()}
   * tokens, and under a windowed cache its sliding-window layers' blocks, at most their window and
   * one block more, in full layers' blocks (gpt-oss, 18 windowed layers of 36 with a 128-token
   * window in 16-token blocks: 9 more at most).
   */
  public long kvBlocksFor(long tokens) {
    return memory.kvBlocksFor(tokens);
  }

  /** The longest sequence (prompt and output) the KV cache can hold at all. */
  public long maxSequenceTokens() {
    return memory.maxSequenceTokens();
  }

  /** KV-cache blocks of {@link EngineConfig#blockTokens()} tokens. */
  public long kvCapacityBlocks() {
    return memory.kvCapacityBlocks();
  }

  /**
   * What one iteration costs, term by term, in nanoseconds.
   *
   * @param gpuNanos the smooth roofline (c^k + m^k)^(1/k) of c = FLOPs / (peak × achievable share
   *     × MFU) and m = bytes / (bandwidth × MBU)
   * @param computeShare the share of {@code gpuNanos} that scales with the compute rate (1 /
   *     MFU), the rest scaling with the bandwidth (1 / MBU): c^k / (c^k + m^k) for compute time c
   *     and memory time m (see {@link #overlap})
   * @param allReduceNanos tensor-parallel all-reduces, two per layer (0 on one GPU)
   * @param samplingNanos reading and writing the FP32 logits of every sequence that samples a
   *     token: samples × vocab × 8 B at the effective bandwidth
   * @param launchNanos kernel launches: one graph replay, or eager launches per layer
   * @param iterationOverheadNanos the engine loop's host time
   * @param sequenceOverheadNanos host time per scheduled sequence × sequences
   * @param draftNanos the speculative drafter's K forward passes over the decoding sequences (0
   *     without speculative decoding)
   * @param allToAllNanos expert parallelism's dispatch and combine, two per MoE layer (0 without
   *     expert parallelism; {@link Parallelism})
   */
  public record Cost(
      long gpuNanos,
      double computeShare,
      long allReduceNanos,
      long samplingNanos,
      long launchNanos,
      long iterationOverheadNanos,
      long sequenceOverheadNanos,
      long draftNanos,
      long allToAllNanos) {

    /** An iteration without expert-parallel all-to-alls. */
    public Cost(long gpuNanos, double computeShare, long allReduceNanos, long samplingNanos,
        long launchNanos, long iterationOverheadNanos, long sequenceOverheadNanos,
        long draftNanos) {
      this(gpuNanos, computeShare, allReduceNanos, samplingNanos, launchNanos,
          iterationOverheadNanos, sequenceOverheadNanos, draftNanos, 0);
    }

    /** Whether the FLOPs term is the larger. */
    public boolean computeBound() {
      return computeShare > 0.5;
    }

    /** The iteration's duration: every term added. */
    public long totalNanos() {
      return gpuNanos + allReduceNanos + samplingNanos + launchNanos + iterationOverheadNanos
          + sequenceOverheadNanos + draftNanos + allToAllNanos;
    }
  }

  /**
   * Nanoseconds one iteration takes when every scheduled sequence samples a token and a batch of
   * single tokens decodes: {@link #cost(int, double, long, int, int, int)} with {@code decoding}
   * equal to {@code sequences} when {@code tokens == sequences} (else 0) and every sequence
   * sampling.
   */
  public long iterationNanos(
      int tokens, double attentionPairs, long contextTokensRead, int sequences) {
    int decoding = tokens == sequences ? sequences : 0;
    return cost(tokens, attentionPairs, contextTokensRead, sequences, decoding, sequences)
        .totalNanos();
  }

  /**
   * What one iteration costs.
   *
   * @param tokens tokens processed (one per decoding sequence plus the prefill chunks), ≥ 1
   * @param attentionPairs Σ over processed tokens of the positions each attends to
   * @param contextTokensRead Σ over scheduled sequences of the tokens already in their KV cache
   * @param sequences sequences scheduled in the iteration, decoding and prefilling, ≥ 1
   * @param decoding of those, sequences that process exactly one token (decode)
   * @param samples sequences that sample a token at the end of the iteration (decoding ones and
   *     those whose prompt completes)
   */
  public Cost cost(
      int tokens,
      double attentionPairs,
      long contextTokensRead,
      int sequences,
      int decoding,
      int samples) {
    int tp = config.tensorParallel();
    ModelSpec m = config.model();
    double matmulFlops = 2.0 * (m.activeParams() - m.inputEmbeddingParams()) * tokens;
    Speculation spec = config.speculation();
    // every sequence decoding (with speculation: verifying its 1 + K positions)
    boolean decodeOnly = decoding == sequences && tokens == decoding * spec.positionsPerStep();
    if (parallel != null) {
      return parallelCost(tokens, attentionPairs, contextTokensRead, sequences, decoding, samples,
          decodeOnly);
    }
    double attentionFlops = m.attentionFlops(attentionPairs, tokens, decodeOnly);
    double flopsPerGpu = (matmulFlops + attentionFlops) / tp;
    // The input embedding is a lookup of the iteration's tokens' rows, not a read of the table.
    double weightBytes = MemoryPlan.weightBytes(config, m.paramsReadPerIteration(tokens) - m.inputEmbeddingParams(),
        m.routedParamsReadPerIteration(tokens)) / tp;
    double kvBytes = kvBytesRead(contextTokensRead, tokens, sequences);
    double computeSeconds = flopsPerGpu / flopsPerSecondPerGpu;
    double memorySeconds = (weightBytes + kvBytes) / bytesPerSecondPerGpu;
    double samplingSeconds = (double) samples * m.vocabSize() * LOGIT_BYTES / bytesPerSecondPerGpu;
    EngineProfile profile = config.profile();
    long launch = profile.graphed(decodeOnly ? decoding : tokens, sequences, decoding)
        ? EngineProfile.GRAPH_LAUNCH_NANOS
        : (long) m.layers() * EngineProfile.EAGER_LAUNCH_NANOS_PER_LAYER;
    double k = config.overlapExponent();
    double gpuSeconds = overlap(computeSeconds, memorySeconds, k);
    return new Cost(
        Math.round(gpuSeconds * NANOS_PER_SECOND),
        computeShare(computeSeconds, memorySeconds, k),
        Math.round(allReduceSeconds(tokens) * NANOS_PER_SECOND),
        Math.round(samplingSeconds * NANOS_PER_SECOND),
        launch,
        config.iterationOverheadNanos(),
        (long) sequences * config.perSequenceOverheadNanos(),
        spec.enabled() && decoding > 0 ? draftNanos(decoding, contextTokensRead) : 0);
  }

  /** {@link #cost} under data-parallel attention or expert parallelism: the busiest GPU's. */
  private Cost parallelCost(int tokens, double attentionPairs, long contextTokensRead,
      int sequences, int decoding, int samples, boolean decodeOnly) {
    ModelSpec m = config.model();
    double[] work = parallel.work(tokens, attentionPairs, sequences, decoding, decodeOnly);
    double share = parallel.busiestSequenceShare(sequences);
    double kvBytes = kvBytesRead(contextTokensRead, tokens, sequences) * share;
    double computeSeconds = work[0] / flopsPerSecondPerGpu;
    double memorySeconds = (work[1] + kvBytes) / bytesPerSecondPerGpu;
    double samplingSeconds = samples * share * m.vocabSize() * LOGIT_BYTES / bytesPerSecondPerGpu;
    // each attention group's scheduler handles its own sequences and captures its own graphs
    int groups = config.parallelism().dataParallelAttention();
    int busiestSequences = (sequences + groups - 1) / groups;
    int busiestDecoding = (decoding + groups - 1) / groups;
    int busiestTokens = (int) Math.ceil(parallel.busiestTokens(tokens, sequences, decoding));
    long launch = config.profile().graphed(decodeOnly ? busiestDecoding : busiestTokens,
        busiestSequences, decodeOnly ? busiestSequences : busiestDecoding)
        ? EngineProfile.GRAPH_LAUNCH_NANOS
        : (long) m.layers() * EngineProfile.EAGER_LAUNCH_NANOS_PER_LAYER;
    double k = config.overlapExponent();
    return new Cost(
        Math.round(overlap(computeSeconds, memorySeconds, k) * NANOS_PER_SECOND),
        computeShare(computeSeconds, memorySeconds, k),
        parallel.allReduceNanos(tokens, sequences, decoding),
        Math.round(samplingSeconds * NANOS_PER_SECOND),
        launch,
        config.iterationOverheadNanos(),
        (long) busiestSequences * config.perSequenceOverheadNanos(),
        0,
        parallel.allToAllNanos(tokens, sequences, decoding));
  }

  /**
   * The drafter's K sequential passes over {@code decoding} sequences with {@code context} tokens
   * of context. MTP and EAGLE: one decoder layer of the target (its share of what the iteration's
   * weights read would be, the experts as {@code decoding} tokens touch them) plus the LM head,
   * one layer's KV of the context, one graph launch. A draft model: its own decode iteration's GPU,
   * all-reduce, sampling and launch terms.
   */
  long draftNanos(int decoding, long context) {
    Speculation spec = config.speculation();
    long one;
    if (draft != null) {
      Cost c = draft.cost(decoding, context + (double) decoding, context, decoding, decoding, decoding);
      one = c.gpuNanos() + c.allReduceNanos() + c.samplingNanos() + c.launchNanos();
    } else {
      ModelSpec m = config.model();
      int tp = config.tensorParallel();
      double table = m.embeddingParams();
      double body = (m.paramsReadPerIteration(decoding) - (m.architecture().tiedEmbeddings() ? 1 : 2)
          * table) / m.layers();
      double bytes = MemoryPlan.weightBytes(config, body + table, m.routedParamsReadPerIteration(decoding)
          / m.layers()) / tp + (context + (double) decoding) * kvBytesPerTokenPerGpu / m.layers();
      double activeBody = (m.activeParams() - (m.architecture().tiedEmbeddings() ? 1 : 2) * table)
          / m.layers();
      double flops = (2.0 * (activeBody + table) * decoding
          + m.attentionFlops(context + (double) decoding, decoding, true) / m.layers()) / tp;
      double seconds = overlap(flops / flopsPerSecondPerGpu, bytes / bytesPerSecondPerGpu,
          config.overlapExponent());
      one = Math.round(seconds * NANOS_PER_SECOND) + EngineProfile.GRAPH_LAUNCH_NANOS;
    }
    return spec.tokens() * one;
  }

  /** The draft model's cost model on the same GPUs, or null without one. */
  private static Roofline draftRoofline(EngineConfig c) {
    ModelSpec d = c.speculation().draft();
    if (d == null) {
      return null;
    }
    return new Roofline(EngineConfig.of(d, c.gpu(), c.profile())
        .withTensorParallel(c.tensorParallel())
        .withPrecision(d.architecture().nativeWeights(), c.kvCache())
        .withEfficiency(c.mfu(), c.mbu(), 0, 0)
        .withOverlapExponent(c.overlapExponent()));
  }

  /**
   * The GPU time of work that needs {@code compute} seconds at the compute rate and {@code memory}
   * at the bandwidth: (c^k + m^k)^(1/k), homogeneous of degree 1; k = ∞ is max(c, m). k = 3, the
   * calibration's, is written with a cube and {@link Math#cbrt}: a simulated iteration at batch 1
   * costs a few hundred nanoseconds, and Math.pow three times would be a good share of it
   * (docs/PERFORMANCE.md, "The simulator in virtual time").
   */
  static double overlap(double compute, double memory, double k) {
    double hi = Math.max(compute, memory);
    if (hi == 0 || k == Double.POSITIVE_INFINITY) {
      return hi;
    }
    double r = Math.min(compute, memory) / hi;
    if (k == 3) {
      return hi * Math.cbrt(1 + r * r * r);
    }
    return hi * Math.pow(1 + Math.pow(r, k), 1 / k);
  }

  /** {@link #overlap(double, double, double)} at k = 3. */
  static double overlap(double compute, double memory) {
    return overlap(compute, memory, 3);
  }

  /**
   * The share of {@link #overlap} that scales with the compute time: c·∂g/∂c / g = c^k / (c^k +
   * m^k) (Euler's theorem for a degree-1 function), so to first order a change of MFU moves this
   * share of the time and a change of MBU the rest. At k = ∞, 1 where c > m, else 0.
   */
  static double computeShare(double compute, double memory, double k) {
    if (compute == 0 && memory == 0) {
      return 0;
    }
    if (k == Double.POSITIVE_INFINITY) {
      return compute > memory ? 1 : 0;
    }
    double r = Math.min(compute, memory) / Math.max(compute, memory);
    double rk = k == 3 ? r * r * r : Math.pow(r, k);
    return compute >= memory ? 1 / (1 + rk) : rk / (1 + rk);
  }

  /** {@link #computeShare(double, double, double)} at k = 3. */
  static double computeShare(double compute, double memory) {
    return computeShare(compute, memory, 3);
  }

  /**
   * KV-cache bytes one iteration moves on each GPU: every scheduled sequence's context read once
   * and the new tokens' KV written. Sliding-window layers read at most the window per sequence,
   * estimated from the mean context ({@code min(context, sequences × window)}).
   */
  double kvBytesRead(long contextTokensRead, int tokens, int sequences) {
    double share = config.model().slidingKvShare();
    if (share == 0) {
      return (contextTokensRead + (double) tokens) * kvBytesPerTokenPerGpu;
    }
    double window = config.model().architecture().slidingWindow();
    double slidingContext = Math.min(contextTokensRead, sequences * window);
    return ((1 - share) * contextTokensRead + share * slidingContext + tokens)
        * kvBytesPerTokenPerGpu;
  }

  /** Time of one iteration's tensor-parallel all-reduces: 0 on one GPU. */
  double allReduceSeconds(int tokens) {
    int tp = config.tensorParallel();
    if (tp == 1) {
      return 0;
    }
    double bytes = (double) tokens * config.model().hiddenSize() * 2; // BF16 activations
    double transfer = 2.0 * (tp - 1) / tp * bytes / config.gpu().interconnectBytesPerSecond();
    double one = config.allReduceLatencyNanos() / NANOS_PER_SECOND + transfer;
    return 2.0 * config.model().layers() * one;
  }
}
