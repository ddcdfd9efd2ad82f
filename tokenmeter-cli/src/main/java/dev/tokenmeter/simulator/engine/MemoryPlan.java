package dev.tokenmeter.simulator.engine;

import java.util.Locale;

/**
 * How one deployment spends each GPU's memory: its weights (and a speculative drafter's), the
 * reserve, and the KV cache they leave, in whole blocks; and how many of those blocks a sequence
 * holds. Immutable, thread-safe; built by {@link Roofline}, whose public methods expose it.
 *
 * <pre>
 * design notes
 * - KV capacity = memory × utilisation − weights − drafter − reserve, per GPU, in whole blocks; a
 *   profile with a KV memory share (LMDeploy's cache_max_entry_count) takes that share of the
 *   whole memory instead, at most what the weights and reserve leave of it.
 * - Weights: quantized checkpoints keep the embedding and the LM head in BF16 (weightBytes).
 * - Under data-parallel attention each attention group holds its own sequences' KV cache: the
 *   capacity is a group's blocks times the groups.
 * - vLLM's hybrid KV-cache manager keeps a sliding-window layer's last window only (a profile's
 *   windowedKvCache): a block is then the full-attention layers' share of a token's KV, and each
 *   sequence holds its window's blocks for the sliding layers on top (kvBlocksFor).
 * </pre>
 */
final class MemoryPlan {

  private final EngineConfig config;
  private final double weightBytesPerGpu;
  private final double kvBytesPerTokenPerGpu;
  private final long kvCapacityTokens;
  /** Sliding-window layers' blocks per full layers' block when only their window is kept; 0 otherwise. */
  private final double slidingBlocksPerBlock;
  /** Blocks a sliding-window layer group keeps per sequence at most: its window and one more. */
  private final long windowBlocks;

  /**
   * The memory of {@code config}, whose speculative drafter, when a draft model, has the memory
   * {@code draft} (null otherwise).
   *
   * @throws IllegalArgumentException when the weights and reserve leave no room for one block of
   *     KV cache on each GPU
   */
  MemoryPlan(EngineConfig config, MemoryPlan draft) {
    this.config = config;
    int tp = config.tensorParallel();
    Parallelism parallelism = config.parallelism();
    this.weightBytesPerGpu = parallelism.plain() ? totalWeightBytes(config) / tp
        : ParallelCost.weightBytesPerGpu(config);
    // an attention group's GPUs split (or, MLA's latent, replicate) its sequences' KV cache
    this.kvBytesPerTokenPerGpu = config.model().kvBytesPerTokenPerGpu(config.kvCache(),
        tp / parallelism.dataParallelAttention());
    double[] drafter = drafterMemory(config, draft);
    double usable = config.gpu().memoryBytes() * config.gpuMemoryUtilization();
    double kvBytes = usable - weightBytesPerGpu - drafter[0] - config.reserveBytesPerGpu();
    double share = config.profile().kvMemoryShare();
    if (share > 0) {
      // LMDeploy sizes its cache from the whole memory, not gpu_memory_utilization
      kvBytes = Math.min(config.gpu().memoryBytes() * share,
          config.gpu().memoryBytes() - weightBytesPerGpu - config.reserveBytesPerGpu());
    }
    double capacityBytesPerToken = kvBytesPerTokenPerGpu;
    Architecture a = config.model().architecture();
    int fullLayers = config.model().layers() - a.slidingLayers();
    if (config.profile().windowedKvCache() && a.slidingLayers() > 0 && fullLayers > 0
        && !a.latentAttention()) {
      capacityBytesPerToken = kvBytesPerTokenPerGpu * fullLayers / config.model().layers();
      this.slidingBlocksPerBlock = (double) a.slidingLayers() / fullLayers;
      this.windowBlocks = (a.slidingWindow() + config.blockTokens() - 1) / config.blockTokens() + 1;
    } else {
      this.slidingBlocksPerBlock = 0;
      this.windowBlocks = 0;
    }
    long blocks = (long) Math.floor(
        kvBytes / ((capacityBytesPerToken + drafter[1]) * config.blockTokens()));
    if (blocks < 1) {
      throw new IllegalArgumentException(doesNotFit(config, weightBytesPerGpu));
    }
    // each attention group holds its own sequences' KV cache
    this.kvCapacityTokens = blocks * config.blockTokens() * parallelism.dataParallelAttention();
  }

  /** Why a deployment has no room for a KV cache, and what to change. */
  private static String doesNotFit(EngineConfig config, double weightBytesPerGpu) {
    Parallelism parallelism = config.parallelism();
    int tp = config.tensorParallel();
    if (!parallelism.plain()) {
      return String.format(Locale.ROOT,
          "%s (%s weights, %.1f GB per GPU with%s) does not fit on %d x %s with room for a KV"
              + " cache; spread the experts over more GPUs (--gpus, --expert-parallel), use fewer"
              + " attention groups (--dp-attention D: each holds the attention weights whole) or"
              + " a smaller precision",
          config.model().id(), config.weights().id(), weightBytesPerGpu / 1e9,
          parallelism.describe().substring(1), tp, config.gpu().id());
    }
    int needed = gpusNeeded(config);
    return String.format(
        Locale.ROOT,
        "%s (%s weights, %.1f GB per GPU) does not fit on %d x %s with room for a KV cache;"
            + " %s",
        config.model().id(), config.weights().id(), weightBytesPerGpu / 1e9, tp,
        config.gpu().id(),
        needed > 0
            ? "it needs at least " + needed + " GPUs (--gpus " + needed
                + ") or a smaller precision"
            : "even 64 GPUs are not enough: use a smaller precision or a larger GPU");
  }

  /** See {@link Roofline#gpusNeeded}. */
  static int gpusNeeded(EngineConfig config) {
    for (int n = 1; n <= 64; n++) {
      double weights = totalWeightBytes(config) / n;
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

  /**
   * Bytes of {@code params} parameters of the deployment's weights, the embeddings and the LM head
   * among them: quantized checkpoints (FP8, INT8, INT4, FP4) keep both in BF16 (vLLM's FP8 and
   * ModelOpt's checkpoints leave lm_head unquantized; the embedding is a lookup table), so each
   * of those {@code vocab × hidden} tables counts at 2 bytes, the rest at the weight precision.
   * {@code params} includes the LM head; it includes the input embedding when it is the total.
   * A model whose quantization covers only its routed experts ({@link
   * Architecture#attentionWeightsWide()}, gpt-oss) counts all but {@code routedParams} of the
   * rest at 2 bytes too.
   */
  static double weightBytes(EngineConfig c, double params, double routedParams) {
    double table = c.model().embeddingParams();
    boolean tied = c.model().architecture().tiedEmbeddings();
    double tables = params >= c.model().totalParams() && !tied ? 2 * table : table;
    double wide = Math.max(c.weights().bytesPerValue(), Precision.BF16.bytesPerValue());
    if (c.model().architecture().attentionWeightsWide() && c.weights().bytesPerValue() < wide) {
      return routedParams * c.weights().bytesPerValue() + (params - routedParams) * wide;
    }
    return (params - tables) * c.weights().bytesPerValue() + tables * wide;
  }

  /** {@link #weightBytes(EngineConfig, double, double)} of all the model's parameters. */
  static double totalWeightBytes(EngineConfig c) {
    ModelSpec m = c.model();
    return weightBytes(c, m.totalParams(), m.experts() * m.paramsPerExpert());
  }

  /**
   * {weight bytes, KV bytes per token} per GPU the drafter keeps: a draft model's weights and KV
   * cache; one decoder layer's weights and KV for MTP and EAGLE (DeepSeek-V3's MTP module is one
   * more layer of the same shape); nothing without speculation.
   */
  private static double[] drafterMemory(EngineConfig c, MemoryPlan draft) {
    if (draft != null) {
      return new double[] {draft.weightBytesPerGpu(), draft.kvBytesPerTokenPerGpu()};
    }
    if (!c.speculation().enabled()) {
      return new double[] {0, 0};
    }
    ModelSpec m = c.model();
    int tp = c.tensorParallel();
    double tables = (m.architecture().tiedEmbeddings() ? 1 : 2) * (double) m.embeddingParams();
    double layer = (m.totalParams() - tables) / m.layers();
    double routed = m.experts() * m.paramsPerExpert() / m.layers();
    double q = c.weights().bytesPerValue();
    double wide = Math.max(q, Precision.BF16.bytesPerValue());
    double bytes = m.architecture().attentionWeightsWide() && q < wide
        ? routed * q + (layer - routed) * wide
        : layer * q;
    return new double[] {bytes / tp, m.kvBytesPerTokenPerGpu(c.kvCache(), tp) / m.layers()};
  }

  double weightBytesPerGpu() {
    return weightBytesPerGpu;
  }

  double kvBytesPerTokenPerGpu() {
    return kvBytesPerTokenPerGpu;
  }

  long kvCapacityTokens() {
    return kvCapacityTokens;
  }

  /** See {@link Roofline#kvBlocksFor}. */
  long kvBlocksFor(long tokens) {
    long blocks = (tokens + config.blockTokens() - 1) / config.blockTokens();
    return slidingBlocksPerBlock == 0 ? blocks
        : blocks + (long) Math.ceil(slidingBlocksPerBlock * Math.min(blocks, windowBlocks));
  }

  /** See {@link Roofline#maxSequenceTokens}. */
  long maxSequenceTokens() {
    return slidingBlocksPerBlock == 0 ? kvCapacityTokens
        : Math.max(0, kvCapacityTokens
            - (long) Math.ceil(slidingBlocksPerBlock * windowBlocks) * config.blockTokens());
  }

  long kvCapacityBlocks() {
    return kvCapacityTokens / config.blockTokens();
  }
}
