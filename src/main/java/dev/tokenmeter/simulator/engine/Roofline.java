package dev.tokenmeter.simulator.engine;

/**
 * The cost model of one engine iteration, and the KV-cache capacity of a deployment. Immutable,
 * thread-safe; every figure is per GPU, the work of an iteration being split evenly over the
 * tensor-parallel GPUs.
 *
 * <pre>
 * design notes
 * - time = max(FLOPs / (peak × MFU), bytes / (bandwidth × MBU)) + overhead
 *   + per-sequence overhead × sequences + all-reduces.
 * - FLOPs = 2 × active params × tokens (one multiply-add per weight per token) + attention,
 *   4 × layers × heads × headDim per (query token, attended token) pair (QKᵀ and AV).
 * - bytes = weights read once per iteration (MoE: only the experts routed to) + the KV cache of
 *   every scheduled sequence's context read once + the new tokens' KV written.
 * - all-reduces: two per layer (after attention and after the MLP) of tokens × hidden × 2 bytes,
 *   ring: latency + 2(N−1)/N × bytes / link bandwidth. None on one GPU.
 * - KV capacity = memory × utilisation − weights − reserve, per GPU, in whole blocks.
 * </pre>
 */
public final class Roofline {
  private static final double NANOS_PER_SECOND = 1e9;

  private final EngineConfig config;
  private final double weightBytesPerGpu;
  private final double kvBytesPerTokenPerGpu;
  private final long kvCapacityTokens;
  private final double flopsPerSecondPerGpu;
  private final double bytesPerSecondPerGpu;

  /**
   * @throws IllegalArgumentException when the weights and reserve leave no room for one block of
   *     KV cache on each GPU
   */
  public Roofline(EngineConfig config) {
    this.config = config;
    int tp = config.tensorParallel();
    this.weightBytesPerGpu = config.model().totalParams() * config.weights().bytesPerValue() / tp;
    this.kvBytesPerTokenPerGpu = config.model().kvBytesPerTokenPerGpu(config.kvCache(), tp);
    double usable = config.gpu().memoryBytes() * config.gpuMemoryUtilization();
    double kvBytes = usable - weightBytesPerGpu - config.reserveBytesPerGpu();
    long blocks = (long) Math.floor(kvBytes / (kvBytesPerTokenPerGpu * config.blockTokens()));
    if (blocks < 1) {
      int needed = gpusNeeded(config);
      throw new IllegalArgumentException(
          String.format(
              java.util.Locale.ROOT,
              "%s (%s weights, %.1f GB per GPU) does not fit on %d x %s with room for a KV cache;"
                  + " %s",
              config.model().id(), config.weights().id(), weightBytesPerGpu / 1e9, tp,
              config.gpu().id(),
              needed > 0
                  ? "it needs at least " + needed + " GPUs (--gpus " + needed
                      + ") or a smaller precision"
                  : "even 64 GPUs are not enough: use a smaller precision or a larger GPU"));
    }
    this.kvCapacityTokens = blocks * config.blockTokens();
    this.flopsPerSecondPerGpu = config.gpu().peakFlopsPerSecond(config.weights()) * config.mfu();
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
    for (int n = 1; n <= 64; n++) {
      double weights = config.model().totalParams() * config.weights().bytesPerValue() / n;
      double kvBlock = config.model().kvBytesPerTokenPerGpu(config.kvCache(), n) * config.blockTokens();
      double room =
          config.gpu().memoryBytes() * config.gpuMemoryUtilization() - weights
              - config.reserveBytesPerGpu();
      if (Math.floor(room / kvBlock) >= 1) {
        return n;
      }
    }
    return -1;
  }

  /** Bytes of weights on each GPU. */
  public double weightBytesPerGpu() {
    return weightBytesPerGpu;
  }

  /** Bytes of KV cache per token on each GPU. */
  public double kvBytesPerTokenPerGpu() {
    return kvBytesPerTokenPerGpu;
  }

  /** Tokens the KV cache holds, all sequences together (a whole number of blocks). */
  public long kvCapacityTokens() {
    return kvCapacityTokens;
  }

  /** KV-cache blocks of {@link EngineConfig#blockTokens()} tokens. */
  public long kvCapacityBlocks() {
    return kvCapacityTokens / config.blockTokens();
  }

  /**
   * Nanoseconds one iteration takes.
   *
   * @param tokens tokens processed (one per decoding sequence plus the prefill chunks), ≥ 1
   * @param attentionPairs Σ over processed tokens of the positions each attends to
   * @param contextTokensRead Σ over scheduled sequences of the tokens already in their KV cache
   * @param sequences sequences scheduled in the iteration, decoding and prefilling, ≥ 1
   */
  public long iterationNanos(
      int tokens, double attentionPairs, long contextTokensRead, int sequences) {
    int tp = config.tensorParallel();
    ModelSpec m = config.model();
    double matmulFlops = 2.0 * m.activeParams() * tokens;
    double attentionFlops = 4.0 * m.layers() * m.attentionHeads() * m.headDim() * attentionPairs;
    double flopsPerGpu = (matmulFlops + attentionFlops) / tp;
    double weightBytes =
        m.paramsReadPerIteration(tokens) * config.weights().bytesPerValue() / tp;
    double kvBytes = (contextTokensRead + (double) tokens) * kvBytesPerTokenPerGpu;
    double computeSeconds = flopsPerGpu / flopsPerSecondPerGpu;
    double memorySeconds = (weightBytes + kvBytes) / bytesPerSecondPerGpu;
    double seconds = Math.max(computeSeconds, memorySeconds) + allReduceSeconds(tokens);
    return Math.round(seconds * NANOS_PER_SECOND) + config.iterationOverheadNanos()
        + sequences * config.perSequenceOverheadNanos();
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
