package dev.tokenmeter.simulator.engine;

import java.util.Objects;

/**
 * One deployment of a model on GPUs, and the serving engine's knobs. Immutable; start from
 * {@link #of(ModelSpec, GpuSpec)} and change what differs with the {@code with…} methods.
 *
 * @param model the model
 * @param gpu the accelerator
 * @param tensorParallel GPUs the model is sharded over (vLLM {@code --tensor-parallel-size})
 * @param weights weight precision
 * @param kvCache KV-cache precision ({@code --kv-cache-dtype})
 * @param gpuMemoryUtilization share of each GPU's memory the engine may use (vLLM default 0.9)
 * @param reserveBytesPerGpu of that share, what is not weights nor KV cache: activations at the
 *     largest batch, CUDA graphs, the CUDA context (assumed 3 GiB)
 * @param maxNumSeqs most sequences running at once ({@code --max-num-seqs})
 * @param maxBatchedTokens token budget of one iteration, decode and prefill together ({@code
 *     --max-num-batched-tokens}, chunked prefill)
 * @param blockTokens tokens per KV-cache block (the profile's: vLLM's paged attention 16, LMDeploy
 *     128)
 * @param mfu model FLOPs utilisation: share of the GPU's achievable matrix rate (the datasheet
 *     peak × {@link AchievableMatmul#share}) reached by compute-bound work
 * @param mbu memory bandwidth utilisation: share of the peak bandwidth reached when streaming
 *     weights and KV cache
 * @param overlapExponent k of the smooth roofline (c^k + m^k)^(1/k) of an iteration's compute
 *     time c and memory time m ({@link Roofline}); ≥ 1, {@link Double#POSITIVE_INFINITY} for
 *     max(c, m)
 * @param iterationOverheadNanos host time per iteration: the engine loop's scheduling, input
 *     preparation and synchronisation (the profile's fitted value plus the GPU's {@link Platform}
 *     extra, unless overridden)
 * @param perSequenceOverheadNanos host time per iteration for each scheduled sequence, decoding or
 *     prefilling: bookkeeping and block tables, sampling on the host, detokenisation, streaming
 *     (the profile's plus the platform's, unless overridden)
 * @param allReduceLatencyNanos fixed latency of one tensor-parallel all-reduce (the GPU's
 *     interconnect class, {@link GpuSpec#allReduceLatencyNanos()})
 * @param prefixCaching whether full prompt blocks already in the KV cache (same content, same
 *     position) skip prefill: vLLM's automatic prefix caching, on by default as in vLLM V1 (off
 *     for a profile whose engine has none)
 * @param profile the serving engine: its scheduling and admission policies and CUDA graphs
 * @param speculation speculative decoding ({@link Speculation#NONE} by default)
 * @param parallelism data-parallel attention and expert parallelism over the {@code
 *     tensorParallel} GPUs ({@link Parallelism#NONE}, plain tensor parallelism, by default)
 */
public record EngineConfig(
    ModelSpec model,
    GpuSpec gpu,
    int tensorParallel,
    Precision weights,
    Precision kvCache,
    double gpuMemoryUtilization,
    long reserveBytesPerGpu,
    int maxNumSeqs,
    int maxBatchedTokens,
    int blockTokens,
    double mfu,
    double mbu,
    double overlapExponent,
    long iterationOverheadNanos,
    long perSequenceOverheadNanos,
    long allReduceLatencyNanos,
    boolean prefixCaching,
    EngineProfile profile,
    Speculation speculation,
    Parallelism parallelism) {

  /** 3 GiB: see {@link #reserveBytesPerGpu()}. */
  public static final long DEFAULT_RESERVE_BYTES = 3L << 30;

  public EngineConfig {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(gpu, "gpu");
    Objects.requireNonNull(weights, "weights");
    Objects.requireNonNull(kvCache, "kvCache");
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(speculation, "speculation");
    Objects.requireNonNull(parallelism, "parallelism");
    if (tensorParallel < 1 || maxNumSeqs < 1 || maxBatchedTokens < 1 || blockTokens < 1) {
      throw new IllegalArgumentException(
          "tensorParallel, maxNumSeqs, maxBatchedTokens, blockTokens must be >= 1");
    }
    if (!(gpuMemoryUtilization > 0 && gpuMemoryUtilization <= 1)) {
      throw new IllegalArgumentException("gpuMemoryUtilization must be in (0, 1]");
    }
    if (!(mfu > 0 && mfu <= 1) || !(mbu > 0 && mbu <= 1)) {
      throw new IllegalArgumentException("mfu and mbu must be in (0, 1]");
    }
    if (!(overlapExponent >= 1)) {
      throw new IllegalArgumentException("overlapExponent must be >= 1 (infinity: the plain roofline)");
    }
    if (reserveBytesPerGpu < 0 || iterationOverheadNanos < 0 || perSequenceOverheadNanos < 0
        || allReduceLatencyNanos < 0) {
      throw new IllegalArgumentException("reserve, overhead and latency must be >= 0");
    }
  }

  /**
   * {@code model} on one {@code gpu} served by vLLM ({@link EngineProfile#VLLM}): BF16 weights and
   * KV cache, memory utilisation 0.9, 3 GiB reserve, the profile's block size (16 tokens) and
   * prefix caching (on), the
   * profile's limits for this GPU, the all-reduce latency of its interconnect and the fitted
   * efficiency factors (docs/SIMULATOR.md, Accuracy).
   */
  public static EngineConfig of(ModelSpec model, GpuSpec gpu) {
    return of(model, gpu, EngineProfile.VLLM);
  }

  /**
   * {@code model} on one {@code gpu} served by the engine {@code profile} describes, with the
   * profile's fitted overheads plus what the GPU's {@link Platform} adds to them.
   */
  public static EngineConfig of(ModelSpec model, GpuSpec gpu, EngineProfile profile) {
    Platform platform = Platform.of(gpu);
    return new EngineConfig(
        model, gpu, 1, Precision.BF16, Precision.BF16, 0.9, DEFAULT_RESERVE_BYTES,
        profile.maxNumSeqs(gpu), profile.maxBatchedTokens(gpu), profile.blockTokens(),
        Calibration.MFU, Calibration.MBU, Calibration.OVERLAP_EXPONENT,
        profile.iterationOverheadNanos() + platform.iterationExtraNanos(),
        profile.perSequenceNanos() + platform.perSequenceExtraNanos(),
        gpu.allReduceLatencyNanos(), profile.prefixCaching(), profile, Speculation.NONE, Parallelism.NONE);
  }

  /**
   * This deployment served by another engine: the profile's limits for this GPU, its block size
   * and its fitted overheads (plus the platform's) replace the current ones; prefix caching stays
   * on only where the profile's engine has it; everything else stays.
   */
  public EngineConfig withProfile(EngineProfile p) {
    Platform platform = Platform.of(gpu);
    return new EngineConfig(model, gpu, tensorParallel, weights, kvCache, gpuMemoryUtilization,
        reserveBytesPerGpu, p.maxNumSeqs(gpu), p.maxBatchedTokens(gpu), p.blockTokens(), mfu, mbu, overlapExponent,
        p.iterationOverheadNanos() + platform.iterationExtraNanos(),
        p.perSequenceNanos() + platform.perSequenceExtraNanos(), allReduceLatencyNanos,
        prefixCaching && p.prefixCaching(), p, speculation, parallelism);
  }
  /** This deployment over {@code gpus} GPUs. */
  public EngineConfig withTensorParallel(int gpus) {
    return new EngineConfig(model, gpu, gpus, weights, kvCache, gpuMemoryUtilization,
        reserveBytesPerGpu, maxNumSeqs, maxBatchedTokens, blockTokens, mfu, mbu, overlapExponent,
        iterationOverheadNanos, perSequenceOverheadNanos, allReduceLatencyNanos, prefixCaching,
        profile, speculation, parallelism);
  }

  /**
   * This deployment with data-parallel attention and expert parallelism over its GPUs ({@link
   * Parallelism}; {@link Parallelism#NONE}: tensor parallelism only).
   *
   * @throws IllegalArgumentException when the GPUs or the experts do not divide
   */
  public EngineConfig withParallelism(Parallelism p) {
    p.check(model, tensorParallel);
    return new EngineConfig(model, gpu, tensorParallel, weights, kvCache, gpuMemoryUtilization,
        reserveBytesPerGpu, maxNumSeqs, maxBatchedTokens, blockTokens, mfu, mbu, overlapExponent,
        iterationOverheadNanos, perSequenceOverheadNanos, allReduceLatencyNanos, prefixCaching,
        profile, speculation, p);
  }

  /**
   * Sequences running at once over the deployment: {@link #maxNumSeqs()} per attention group
   * (one scheduler each under data-parallel attention).
   */
  public int schedulerMaxNumSeqs() {
    return maxNumSeqs * parallelism.dataParallelAttention();
  }

  /** Tokens one step schedules over the deployment: {@link #maxBatchedTokens()} per attention group. */
  public int schedulerMaxBatchedTokens() {
    return maxBatchedTokens * parallelism.dataParallelAttention();
  }

  /** This deployment decoding speculatively ({@link Speculation#NONE}: plainly). */
  public EngineConfig withSpeculation(Speculation s) {
    return new EngineConfig(model, gpu, tensorParallel, weights, kvCache, gpuMemoryUtilization,
        reserveBytesPerGpu, maxNumSeqs, maxBatchedTokens, blockTokens, mfu, mbu, overlapExponent,
        iterationOverheadNanos, perSequenceOverheadNanos, allReduceLatencyNanos, prefixCaching,
        profile, s, parallelism);
  }

  /** This deployment with other weight and KV-cache precisions. */
  public EngineConfig withPrecision(Precision weightPrecision, Precision kvPrecision) {
    return new EngineConfig(model, gpu, tensorParallel, weightPrecision, kvPrecision,
        gpuMemoryUtilization, reserveBytesPerGpu, maxNumSeqs, maxBatchedTokens, blockTokens, mfu,
        mbu, overlapExponent, iterationOverheadNanos, perSequenceOverheadNanos, allReduceLatencyNanos, prefixCaching,
        profile, speculation, parallelism);
  }

  /** This deployment with other scheduler limits. */
  public EngineConfig withLimits(int maxSeqs, int maxTokensPerIteration) {
    return new EngineConfig(model, gpu, tensorParallel, weights, kvCache, gpuMemoryUtilization,
        reserveBytesPerGpu, maxSeqs, maxTokensPerIteration, blockTokens, mfu, mbu, overlapExponent,
        iterationOverheadNanos, perSequenceOverheadNanos, allReduceLatencyNanos, prefixCaching,
        profile, speculation, parallelism);
  }

  /** This deployment with other efficiency factors. */
  public EngineConfig withEfficiency(
      double modelFlopsUtilization,
      double bandwidthUtilization,
      long overheadNanos,
      long overheadNanosPerSequence) {
    return new EngineConfig(model, gpu, tensorParallel, weights, kvCache, gpuMemoryUtilization,
        reserveBytesPerGpu, maxNumSeqs, maxBatchedTokens, blockTokens, modelFlopsUtilization,
        bandwidthUtilization, overlapExponent, overheadNanos, overheadNanosPerSequence, allReduceLatencyNanos, prefixCaching,
        profile, speculation, parallelism);
  }

  /**
   * This deployment with another k of the smooth roofline (c^k + m^k)^(1/k) ({@link Roofline});
   * {@link Double#POSITIVE_INFINITY} is the plain roofline max(c, m). The accuracy study's
   * candidates; users keep {@link Calibration#OVERLAP_EXPONENT}.
   */
  public EngineConfig withOverlapExponent(double k) {
    return new EngineConfig(model, gpu, tensorParallel, weights, kvCache, gpuMemoryUtilization,
        reserveBytesPerGpu, maxNumSeqs, maxBatchedTokens, blockTokens, mfu, mbu, k,
        iterationOverheadNanos, perSequenceOverheadNanos, allReduceLatencyNanos, prefixCaching,
        profile, speculation, parallelism);
  }

  /** This deployment with another memory budget. */
  public EngineConfig withMemory(double utilization, long reserveBytes) {
    return new EngineConfig(model, gpu, tensorParallel, weights, kvCache, utilization,
        reserveBytes, maxNumSeqs, maxBatchedTokens, blockTokens, mfu, mbu, overlapExponent,
        iterationOverheadNanos,
        perSequenceOverheadNanos, allReduceLatencyNanos, prefixCaching,
        profile, speculation, parallelism);
  }

  /**
   * This deployment with prefix caching on or off; on only where the profile's engine has it
   * (LMDeploy's TurboMind 0.1 has none).
   */
  public EngineConfig withPrefixCaching(boolean enabled) {
    return new EngineConfig(model, gpu, tensorParallel, weights, kvCache, gpuMemoryUtilization,
        reserveBytesPerGpu, maxNumSeqs, maxBatchedTokens, blockTokens, mfu, mbu, overlapExponent,
        iterationOverheadNanos, perSequenceOverheadNanos, allReduceLatencyNanos,
        enabled && profile.prefixCaching(),
        profile, speculation, parallelism);
  }

  /** {@code llama-3.1-8b on 1 x h100-sxm (bf16 weights, bf16 KV cache)}: the deployment in one line. */
  public String describe() {
    return String.format(
        java.util.Locale.ROOT,
        "%s on %d x %s (%s weights, %s KV cache%s%s%s)",
        model.id(), tensorParallel, gpu.id(), weights.id(), kvCache.id(), parallelism.describe(),
        prefixCaching ? "" : ", no prefix caching",
        !speculation.enabled() ? "" : String.format(java.util.Locale.ROOT,
            ", speculative %s%s: K = %d at acceptance %.2f, %.3f tokens per step",
            speculation.kind().id(),
            speculation.draft() == null ? "" : " " + speculation.draft().id(),
            speculation.tokens(), speculation.acceptance(), speculation.tokensPerStep()));
  }

  /**
   * Whether the efficiency factors are the fitted ones ({@link Calibration}) for this profile on
   * this GPU's platform.
   */
  public boolean fittedCalibration() {
    Platform platform = Platform.of(gpu);
    return mfu == Calibration.MFU
        && mbu == Calibration.MBU
        && overlapExponent == Calibration.OVERLAP_EXPONENT
        && iterationOverheadNanos == profile.iterationOverheadNanos() + platform.iterationExtraNanos()
        && perSequenceOverheadNanos == profile.perSequenceNanos() + platform.perSequenceExtraNanos();
  }

  /**
   * {@code "engine: vllm (vLLM V1 (0.8+)), 1024 sequences, 8192 tokens per iteration; calibration:
   * MFU 0.725 of an achievable 0.803 of the peak, MBU 0.88, roofline k = 3, 2.000 ms per iteration +
   * 0.0075 ms per sequence (fitted ...)"}: the profile and the efficiency factors this deployment uses (MFU with
   * the GPU's achievable matmul share it applies to), and whether they are the fitted ones.
   */
  public String describeEngine() {
    EngineProfile p = profile;
    boolean fitted = fittedCalibration();
    Platform platform = Platform.of(gpu);
    String extra = platform.iterationExtraNanos() == 0 && platform.perSequenceExtraNanos() == 0
        ? ""
        : String.format(java.util.Locale.ROOT, ", of which the %s platform adds %.3f ms + %.4f ms",
            platform.id(), platform.iterationExtraNanos() / 1e6,
            platform.perSequenceExtraNanos() / 1e6);
    return String.format(
        java.util.Locale.ROOT,
        "engine: %s (%s), %d sequences, %d tokens per iteration; calibration: MFU %.3f of an"
            + " achievable %.3f of the peak%s, MBU %.2f, roofline k = %s, %.3f ms per iteration + %.4f ms"
            + " per sequence"
            + " (%s%s)",
        p.id(), p.name(), maxNumSeqs, maxBatchedTokens, mfu, AchievableMatmul.share(gpu, weights),
        AchievableMatmul.measured(gpu) ? "" : " (" + gpu.id() + " not measured: the median of measured GPUs)",
        mbu, overlapExponent == Double.POSITIVE_INFINITY ? "∞ (max)"
            : overlapExponent == Math.rint(overlapExponent) ? Long.toString((long) overlapExponent)
            : Double.toString(overlapExponent),
        iterationOverheadNanos / 1e6, perSequenceOverheadNanos / 1e6,
        fitted ? "fitted to published measurements, docs/SIMULATOR.md Accuracy" : "set by flags",
        fitted ? extra : "");
  }
}
