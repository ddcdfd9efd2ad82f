package dev.tokenmeter.simulator.engine;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How one serving engine schedules and what it costs beyond the GPU's own work: its batch limits,
 * scheduling and admission policies, which batches run as CUDA graphs, and its host-side
 * overheads. Immutable, thread-safe; the built-in profiles are {@link #VLLM}, {@link #SGLANG},
 * {@link #TRT_LLM} and {@link #LMDEPLOY} (docs/SIMULATOR.md, "Engine profiles", lists every figure
 * and its source).
 *
 * <pre>
 * design notes
 * - Limits that the engines derive from the GPU are derived here too: vLLM V1's server defaults are
 *   1,024 sequences and 8,192 batched tokens on GPUs of at least 70 GiB other than the A100, else
 *   256 and 2,048 (vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults); SGLang chunks prefills
 *   at 8,192 tokens on GPUs of 25 GB or more, else 2,048 (python/sglang/srt/server_args.py).
 * - The two overheads are what the accuracy study fits per profile on published measurements
 *   (docs/SIMULATOR.md, Accuracy): the per-iteration cost of the engine loop (scheduling, input
 *   preparation, synchronisation) and the per-sequence cost (bookkeeping, sampling on the host,
 *   detokenising, streaming). Everything else here is read from the engines' sources. They are
 *   the profile's on NVIDIA GPUs; EngineConfig adds what the GPU's Platform costs on top.
 * </pre>
 *
 * @param id command-line name ({@code --engine vllm})
 * @param name the engine and version the figures describe
 * @param scheduling how prefill and decode share iterations
 * @param admission when a request gets its KV cache
 * @param maxNumSeqs most sequences running at once on a large GPU (≥ 70 GiB, not an A100)
 * @param maxBatchedTokens token budget of one iteration on a large GPU
 * @param smallGpuMaxNumSeqs the same on smaller GPUs
 * @param smallGpuMaxBatchedTokens the same on smaller GPUs
 * @param graphMaxBatch largest decode batch that replays a captured CUDA graph; larger ones, and
 *     iterations with prefill tokens unless {@code graphCoversPrefill}, launch kernels eagerly
 * @param graphCoversPrefill whether iterations of up to {@code graphMaxBatch} tokens of any kind run
 *     as graphs (vLLM V1's piecewise graphs) or only decode-only ones do
 * @param blockTokens tokens per KV-cache block
 * @param kvMemoryShare share of each GPU's whole memory the KV cache is given (LMDeploy's
 *     cache_max_entry_count), at most what the weights and reserve leave of it; 0: all they leave
 *     of gpu_memory_utilization (vLLM's rule)
 * @param prefixCaching whether the engine reuses cached prompt blocks (automatic prefix caching)
 * @param iterationOverheadNanos host time per iteration, fitted
 * @param perSequenceNanos host time per scheduled sequence and iteration, fitted
 * @param source where the policies and limits come from
 */
public record EngineProfile(
    String id,
    String name,
    Scheduling scheduling,
    Admission admission,
    int maxNumSeqs,
    int maxBatchedTokens,
    int smallGpuMaxNumSeqs,
    int smallGpuMaxBatchedTokens,
    int graphMaxBatch,
    boolean graphCoversPrefill,
    int blockTokens,
    double kvMemoryShare,
    boolean prefixCaching,
    long iterationOverheadNanos,
    long perSequenceNanos,
    String source) {

  /** How prefill and decode share iterations. */
  public enum Scheduling {
    /**
     * Every iteration decodes the running sequences and fills the rest of the token budget with
     * prompt chunks (vLLM V1, TensorRT-LLM in-flight batching with chunked context).
     */
    MIXED,
    /**
     * An iteration either prefills (new requests, chunked) or decodes every running sequence; a
     * prefill runs whenever one can be admitted (SGLang without --enable-mixed-chunk).
     */
    PREFILL_FIRST
  }

  /** When a request gets its KV cache. */
  public enum Admission {
    /**
     * Blocks are allocated as tokens are scheduled; when none is left the newest running sequence
     * is preempted and recomputed later (vLLM, SGLang).
     */
    ON_DEMAND,
    /**
     * A request is admitted only when the blocks for its whole prompt and max_tokens are free, and
     * they are reserved at once: never a preemption (TensorRT-LLM's GUARANTEED_NO_EVICT, the
     * default capacity scheduler policy in tensorrt_llm/llmapi/llm_args.py).
     */
    RESERVE_FULL
  }

  /** Devices of at least this much memory get the large-GPU limits (vLLM's 70 GiB rule). */
  public static final long LARGE_GPU_BYTES = 70L << 30;

  /** Eager launches per decoder layer: about 10 kernels of about 4 µs (an estimate, not fitted). */
  public static final long EAGER_LAUNCH_NANOS_PER_LAYER = 40_000L;

  /** Replaying one captured graph: one launch (an estimate, not fitted). */
  public static final long GRAPH_LAUNCH_NANOS = 20_000L;

  /**
   * vLLM V1 (v0.8 and later, the default engine): mixed chunked-prefill iterations, piecewise CUDA
   * graphs up to 512 tokens (cuda_graph_sizes default [512], vllm/config), preemption by recompute.
   */
  public static final EngineProfile VLLM =
      new EngineProfile("vllm", "vLLM V1 (0.8+)", Scheduling.MIXED, Admission.ON_DEMAND,
          1024, 8192, 256, 2048, 512, true, 16, 0, true,
          Calibration.VLLM_ITERATION_NANOS, Calibration.VLLM_PER_SEQUENCE_NANOS,
          "vllm/engine/arg_utils.py get_batch_defaults; vllm/config cuda_graph_sizes; vLLM V1 scheduler");

  /**
   * SGLang (0.3 and later): prefill-first scheduling, decode CUDA graphs up to batch 160
   * (cuda_graph_max_bs), chunked prefill of 8,192 tokens, running requests bounded by the KV pool.
   */
  public static final EngineProfile SGLANG =
      new EngineProfile("sglang", "SGLang (0.3+)", Scheduling.PREFILL_FIRST, Admission.ON_DEMAND,
          4096, 8192, 4096, 2048, 160, false, 16, 0, true,
          Calibration.SGLANG_ITERATION_NANOS, Calibration.SGLANG_PER_SEQUENCE_NANOS,
          "python/sglang/srt/server_args.py (chunked_prefill_size, cuda_graph_max_bs); its scheduler");

  /**
   * TensorRT-LLM (in-flight batching, the C++ executor and the PyTorch backend; NIM's TensorRT-LLM
   * profiles): mixed iterations with chunked context, max_batch_size 2,048 and max_num_tokens
   * 8,192, GUARANTEED_NO_EVICT admission, generation CUDA graphs with padding.
   */
  public static final EngineProfile TRT_LLM =
      new EngineProfile("trt-llm", "TensorRT-LLM (0.10+, in-flight batching)", Scheduling.MIXED,
          Admission.RESERVE_FULL, 2048, 8192, 2048, 8192, 2048, false, 16, 0, true,
          Calibration.TRT_LLM_ITERATION_NANOS, Calibration.TRT_LLM_PER_SEQUENCE_NANOS,
          "tensorrt_llm/llmapi/llm_args.py (capacity_scheduler_policy, max_num_tokens); "
              + "docs/source/performance/perf-overview.md (cuda_graph_config batch sizes)");

  /**
   * LMDeploy's TurboMind engine as of v0.1 (lmdeploy/turbomind/deploy/target_model/base.py and
   * src/turbomind/models/llama/{LlamaBatch,SequenceManager,BlockManager}.cc at tag v0.1.0a1):
   * persistent batch of max_batch_size 64 slots; each loop iteration takes new requests into free
   * slots, gives every sequence the blocks of its context + 1 token (newest arrivals preempted
   * first, a request that gets none waits), prefills every newly admitted prompt whole (sub-batches
   * of session_len tokens, one after another in the same iteration: no chunking across iterations)
   * and then decodes the whole batch. KV cache: cache_max_entry_count 0.5 of the GPU's total
   * memory, blocks of cache_block_seq_len 128 tokens. No CUDA graphs and no prefix caching in that
   * version. The token budget 262,144 is its 64 slots at Llama 2's session_len of 4,096: the engine
   * itself sets none.
   */
  public static final EngineProfile LMDEPLOY =
      new EngineProfile("lmdeploy", "LMDeploy TurboMind (0.1, persistent batch)", Scheduling.MIXED,
          Admission.ON_DEMAND, 64, 64 * 4096, 64, 64 * 4096, 0, false, 128, 0.5, false,
          Calibration.LMDEPLOY_ITERATION_NANOS, Calibration.LMDEPLOY_PER_SEQUENCE_NANOS,
          "lmdeploy/turbomind/deploy/target_model/base.py (max_batch_size, cache_max_entry_count,"
              + " cache_block_seq_len); src/turbomind/models/llama/LlamaBatch.cc,"
              + " SequenceManager.cc, BlockManager.cc (v0.1.0a1)");

  private static final List<EngineProfile> ALL = List.of(VLLM, SGLANG, TRT_LLM, LMDEPLOY);

  public EngineProfile {
    if (maxNumSeqs < 1 || maxBatchedTokens < 1 || smallGpuMaxNumSeqs < 1
        || smallGpuMaxBatchedTokens < 1 || graphMaxBatch < 0 || blockTokens < 1) {
      throw new IllegalArgumentException("engine profile " + id + ": limits must be >= 1");
    }
    if (iterationOverheadNanos < 0 || perSequenceNanos < 0) {
      throw new IllegalArgumentException("engine profile " + id + ": overheads must be >= 0");
    }
    if (!(kvMemoryShare >= 0 && kvMemoryShare <= 1)) {
      throw new IllegalArgumentException("engine profile " + id + ": KV memory share must be in [0, 1]");
    }
  }

  /** The built-in profiles, default first. */
  public static List<EngineProfile> all() {
    return ALL;
  }

  /**
   * The profile with this id (any case).
   *
   * @throws IllegalArgumentException naming the known ids when there is none
   */
  public static EngineProfile of(String id) {
    String key = id.trim().toLowerCase(Locale.ROOT);
    return ALL.stream()
        .filter(p -> p.id.equals(key))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown engine '" + id + "'; profiles: "
            + ALL.stream().map(EngineProfile::id).collect(Collectors.joining(", "))));
  }

  /** Whether {@code gpu} gets the large-GPU limits: ≥ 70 GiB and not an A100 (vLLM's rule). */
  public static boolean largeGpu(GpuSpec gpu) {
    return gpu.memoryBytes() >= LARGE_GPU_BYTES && !gpu.id().toLowerCase(Locale.ROOT).contains("a100");
  }

  /**
   * Whether a sliding-window layer's KV cache keeps only its window: vLLM's hybrid KV-cache manager
   * does (V1, on by default for models that mix full and sliding-window attention: gpt-oss, Gemma
   * 3, Llama 4's chunked layers; docs.vllm.ai, design/hybrid_kv_cache_manager). The other profiles
   * count those layers per token like full ones: SGLang sizes its sliding-window pool as a share of
   * the full one (--swa-full-tokens-ratio) and TensorRT-LLM gives each window size a pool of a
   * static share of the memory, neither modelled yet, and a conservative capacity either way.
   */
  public boolean windowedKvCache() {
    return "vllm".equals(id);
  }

  /** Most sequences running at once on {@code gpu}. */
  public int maxNumSeqs(GpuSpec gpu) {
    return largeGpu(gpu) ? maxNumSeqs : smallGpuMaxNumSeqs;
  }

  /** Token budget of one iteration on {@code gpu}. */
  public int maxBatchedTokens(GpuSpec gpu) {
    return largeGpu(gpu) ? maxBatchedTokens : smallGpuMaxBatchedTokens;
  }

  /**
   * Whether an iteration of {@code tokens} tokens over {@code sequences} sequences, of which
   * {@code decoding} decode one token, replays a CUDA graph.
   */
  public boolean graphed(int tokens, int sequences, int decoding) {
    if (graphCoversPrefill) {
      return tokens <= graphMaxBatch;
    }
    return decoding == sequences && sequences <= graphMaxBatch;
  }

  /**
   * This profile with another KV memory share: a deployment that configures its cache (LMDeploy's
   * cache_max_entry_count set in its config.ini).
   */
  public EngineProfile withKvMemoryShare(double share) {
    return new EngineProfile(id, name, scheduling, admission, maxNumSeqs, maxBatchedTokens,
        smallGpuMaxNumSeqs, smallGpuMaxBatchedTokens, graphMaxBatch, graphCoversPrefill,
        blockTokens, share, prefixCaching, iterationOverheadNanos, perSequenceNanos, source);
  }

  /** This profile with other fitted overheads (the accuracy study's folds). */
  public EngineProfile withOverheads(long iterationNanos, long perSequence) {
    return new EngineProfile(id, name, scheduling, admission, maxNumSeqs, maxBatchedTokens,
        smallGpuMaxNumSeqs, smallGpuMaxBatchedTokens, graphMaxBatch, graphCoversPrefill,
        blockTokens, kvMemoryShare, prefixCaching, iterationNanos, perSequence, source);
  }
}
