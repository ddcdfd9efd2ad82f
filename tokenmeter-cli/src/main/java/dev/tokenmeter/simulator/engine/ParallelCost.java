package dev.tokenmeter.simulator.engine;

/**
 * The cost of one iteration, and the weights each GPU holds, under data-parallel attention and
 * expert parallelism ({@link Parallelism}; its design notes state the model). Every figure is
 * the busiest GPU's: the step waits for it. Immutable, thread-safe.
 */
final class ParallelCost {
  private static final double NANOS_PER_SECOND = 1e9;
  /** DeepEP's FP8 dispatch: one FP32 scale per 128 values. */
  private static final int SCALE_GROUP = 128;

  private final EngineConfig config;
  private final Parts parts;

  ParallelCost(EngineConfig config) {
    this.config = config;
    this.parts = parts(config);
  }

  /**
   * Bytes of weights by where they live: {@code attention} (replicated in each attention group),
   * {@code restInMemory} (embeddings, LM head, shared experts, dense MLPs, routers, norms) and
   * {@code restRead} (the same less the input embedding, a lookup), {@code routed} (every routed
   * expert). Quantized checkpoints keep the vocabulary tables in BF16; one that quantizes only its
   * experts keeps everything else in BF16 too (as {@link MemoryPlan#weightBytes}).
   */
  record Parts(double attention, double restInMemory, double restRead, double routed,
      double perExpert) {}

  static Parts parts(EngineConfig c) {
    ModelSpec m = c.model();
    double q = c.weights().bytesPerValue();
    double wide = Math.max(q, Precision.BF16.bytesPerValue());
    double body = m.architecture().attentionWeightsWide() && q < wide ? wide : q;
    double table = m.embeddingParams();
    double tables = m.architecture().tiedEmbeddings() ? table : 2 * table;
    double attention = m.attentionParams();
    double routed = m.routedParams();
    double rest = Math.max(tables, m.totalParams() - attention - routed);
    return new Parts(attention * body, (rest - tables) * body + tables * wide,
        (rest - tables) * body + table * wide, routed * q, m.paramsPerExpert() * q);
  }

  /** Weights on each GPU: the attention over its group, the rest over the group (EP) or all. */
  static double weightBytesPerGpu(EngineConfig c) {
    Parts w = parts(c);
    Parallelism p = c.parallelism();
    int n = c.tensorParallel();
    int a = n / p.dataParallelAttention();
    return w.attention() / a + w.restInMemory() / (p.expertParallel() > 1 ? a : n)
        + w.routed() / n;
  }

  /** GPUs of one attention group. */
  int attentionGpus() {
    return config.tensorParallel() / config.parallelism().dataParallelAttention();
  }

  /**
   * The busiest attention group's share of the step's tokens: round robin puts ceil(d / D) of d
   * decoding sequences (1 + K positions each) and ceil(s / D) of s prefilling ones (the mean
   * chunk each) on it.
   */
  double busiestTokens(int tokens, int sequences, int decoding) {
    int groups = config.parallelism().dataParallelAttention();
    if (groups == 1) {
      return tokens;
    }
    int positions = config.speculation().positionsPerStep();
    int prefills = sequences - decoding;
    double prefillTokens = tokens - (double) decoding * positions;
    double busiest = ceilDiv(decoding, groups) * (double) positions
        + (prefills > 0 ? ceilDiv(prefills, groups) * prefillTokens / prefills : 0);
    return Math.min(tokens, busiest);
  }

  /** The busiest attention group's share of the step's sequences, ceil(S / D) / S. */
  double busiestSequenceShare(int sequences) {
    int groups = config.parallelism().dataParallelAttention();
    return groups == 1 ? 1 : ceilDiv(sequences, groups) / (double) sequences;
  }

  /** {FLOPs, weight bytes} of the busiest GPU in a step of {@code tokens} tokens. */
  double[] work(int tokens, double attentionPairs, int sequences, int decoding, boolean decodeOnly) {
    ModelSpec m = config.model();
    Parallelism p = config.parallelism();
    int n = config.tensorParallel();
    int a = attentionGpus();
    boolean ep = p.expertParallel() > 1;
    double mine = busiestTokens(tokens, sequences, decoding);
    double share = busiestSequenceShare(sequences);
    double attentionParams = m.attentionParams();
    double routedActive = m.mixtureOfExperts() ? m.expertsPerToken() * m.paramsPerExpert() : 0;
    double restActive = Math.max(0, m.activeParams() - attentionParams - routedActive
        - m.inputEmbeddingParams());
    double flops = (2 * attentionParams * mine
            + m.attentionFlops(attentionPairs, tokens, decodeOnly) * share) / a
        + 2 * restActive * (ep ? mine / a : (double) tokens / n)
        + 2 * routedActive * tokens / n;
    double bytes = parts.attention() / a + parts.restRead() / (ep ? a : n)
        + routedBytesRead(tokens);
    return new double[] {flops, bytes};
  }

  /**
   * Routed-expert bytes the busiest GPU reads for {@code tokens} tokens. Tensor-parallel experts:
   * its 1 / N of every expert touched, E·(1 − (1 − k/E)^T) of them. Expert-parallel: the whole of
   * each touched expert of its rank, the busiest of P ranks of E / P experts ({@link
   * Parallelism#expectedMaxBinomial}), split over the N / P GPUs of the rank.
   */
  double routedBytesRead(int tokens) {
    ModelSpec m = config.model();
    if (!m.mixtureOfExperts()) {
      return 0;
    }
    int n = config.tensorParallel();
    int ranks = config.parallelism().expertParallel();
    double touched = 1 - Math.pow(1 - (double) m.expertsPerToken() / m.experts(), tokens);
    if (ranks == 1) {
      return parts.routed() * touched / n;
    }
    double busiest = Parallelism.expectedMaxBinomial(m.experts() / ranks, touched, ranks);
    return busiest * parts.perExpert() / ((double) n / ranks);
  }

  /** Nanoseconds of the step's all-reduces: in the attention group, and on the MLP side. */
  long allReduceNanos(int tokens, int sequences, int decoding) {
    int n = config.tensorParallel();
    int a = attentionGpus();
    double mine = busiestTokens(tokens, sequences, decoding);
    int layers = config.model().layers();
    double seconds = layers * allReduce(a, mine);
    seconds += layers * (config.parallelism().expertParallel() > 1 ? allReduce(a, mine)
        : allReduce(n, tokens));
    return Math.round(seconds * NANOS_PER_SECOND);
  }

  /** One ring all-reduce of {@code tokens} BF16 hidden states over {@code gpus}: 0 on one. */
  private double allReduce(int gpus, double tokens) {
    if (gpus == 1) {
      return 0;
    }
    double bytes = tokens * config.model().hiddenSize() * 2;
    return config.allReduceLatencyNanos() / NANOS_PER_SECOND
        + 2.0 * (gpus - 1) / gpus * bytes / config.gpu().interconnectBytesPerSecond();
  }

  /**
   * Nanoseconds of the step's expert-parallel all-to-alls: a dispatch and a combine per MoE layer
   * ({@link #allToAllSeconds}); 0 without expert parallelism.
   */
  long allToAllNanos(int tokens, int sequences, int decoding) {
    if (config.parallelism().expertParallel() == 1) {
      return 0;
    }
    ModelSpec m = config.model();
    int moeLayers = m.layers() - m.architecture().denseLayers();
    double perGpu = busiestTokens(tokens, sequences, decoding) / attentionGpus();
    double[] one = allToAllSeconds(perGpu);
    return Math.round(moeLayers * (one[0] + one[1]) * NANOS_PER_SECOND);
  }

  /**
   * {dispatch, combine} seconds when a GPU holds {@code tokens} tokens: each goes to its k experts,
   * (P − 1) / P of the copies to other ranks; FP8 out with a scale per 128 values (BF16 for 16-bit
   * weights), BF16 back. Copies to ranks in the GPU's link domain move at the link's bandwidth,
   * the rest over its network card, both at once; plus the fixed latency (the network's when the
   * deployment spans more than one domain).
   */
  double[] allToAllSeconds(double tokens) {
    ModelSpec m = config.model();
    GpuSpec gpu = config.gpu();
    int n = config.tensorParallel();
    int ranks = config.parallelism().expertParallel();
    int domain = Parallelism.linkDomainGpus(gpu);
    double copies = tokens * m.expertsPerToken() * (ranks - 1) / ranks;
    int h = m.hiddenSize();
    double out = config.weights().bytesPerValue() <= 1 ? h + 4.0 * h / SCALE_GROUP : 2.0 * h;
    double back = 2.0 * h;
    double ranksInDomain = n <= domain ? ranks : Math.max(1, (double) ranks * domain / n);
    double local = (ranksInDomain - 1) / (ranks - 1);
    double latency = (n <= domain ? Parallelism.A2A_NVLINK_LATENCY_NANOS
        : Parallelism.A2A_NETWORK_LATENCY_NANOS) / NANOS_PER_SECOND;
    double link = gpu.interconnectBytesPerSecond();
    double nic = Parallelism.NIC_BYTES_PER_SECOND;
    return new double[] {
        latency + Math.max(copies * out * local / link, copies * out * (1 - local) / nic),
        latency + Math.max(copies * back * local / link, copies * back * (1 - local) / nic)};
  }

  private static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }
}
