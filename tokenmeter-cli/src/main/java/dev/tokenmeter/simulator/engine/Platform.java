package dev.tokenmeter.simulator.engine;

import java.util.Locale;

/**
 * The vendor software stack a GPU runs the engine on, and what that stack adds to every iteration
 * beyond the engine profile's own host overheads. The profiles' overheads are fitted on the CUDA
 * stack; a stack whose steps cost more carries its own extra, so one platform's deployments do not
 * set another's overheads (docs/SIMULATOR.md, "Platforms").
 *
 * <pre>
 * design notes
 * - Why a platform term: vLLM's batch-1 step of Llama 3.1 70B FP8 on 8 × MI300X takes 8.4 ms
 *   (AMD's published batch latencies, ROCm/vllm docs/dev-docker/README.md) where the GPU's weights
 *   and all-reduces take about 2.5 ms; its batch-128 step takes 22.7 ms, about 0.1 ms more per
 *   sequence than the model's GPU time grows. The same engine on one H100 (silybench) steps in
 *   4.6 ms with 2.6 ms of weights. Fitted as one vLLM overhead, the MI300X runs pulled the CUDA
 *   deployments' overhead from 2 ms to 6 ms.
 * - What the extra is not: the all-reduces. vLLM's ROCm custom all-reduce at TP 8 takes
 *   6.3–6.7 µs for small messages (on MI355X, vllm-project/vllm pull request 39080), 1 ms over a
 *   step's 160.
 *   Reported causes on the stack: a host-bound decode loop at TP 8 on MI300X ("still CPU limited,
 *   especially at 8x GPUs", Epliz/muiLLM pull request 5) and vLLM's FP8 path on MI300X decoding
 *   slower than its BF16 one (vllm-project/vllm issue 31475, MoE models). None measures the parts
 *   apart, so the extra is fitted, from the ROCm sources only.
 * - CUDA is the baseline: 0 extra. A platform no source measures takes 0 (the CUDA figures),
 *   which is also what a platform's held-out fold uses.
 * </pre>
 */
public enum Platform {
  /** NVIDIA GPUs: the stack the profiles' overheads are fitted on; no extra. */
  CUDA(0, 0),
  /** AMD Instinct GPUs (ROCm, HIP graphs, RCCL and vLLM's ROCm kernels): fitted extras. */
  ROCM(Calibration.ROCM_ITERATION_NANOS, Calibration.ROCM_PER_SEQUENCE_NANOS);

  private final long iterationExtraNanos;
  private final long perSequenceExtraNanos;

  Platform(long iterationExtraNanos, long perSequenceExtraNanos) {
    this.iterationExtraNanos = iterationExtraNanos;
    this.perSequenceExtraNanos = perSequenceExtraNanos;
  }

  /**
   * The stack {@code gpu} runs: ROCm for AMD Instinct GPUs (a name that says "AMD" or "Instinct",
   * or an id {@code mi} and a digit, as {@code mi300x}), else CUDA.
   */
  public static Platform of(GpuSpec gpu) {
    String name = gpu.name().toLowerCase(Locale.ROOT);
    String id = gpu.id().toLowerCase(Locale.ROOT);
    boolean amd = name.contains("amd") || name.contains("instinct")
        || (id.length() > 2 && id.startsWith("mi") && Character.isDigit(id.charAt(2)));
    return amd ? ROCM : CUDA;
  }

  /** Host and kernel time this stack adds to every iteration, fitted (0 on CUDA). */
  public long iterationExtraNanos() {
    return iterationExtraNanos;
  }

  /** Time this stack adds per scheduled sequence and iteration, fitted (0 on CUDA). */
  public long perSequenceExtraNanos() {
    return perSequenceExtraNanos;
  }

  /** {@code "rocm"}: the name used in tables and run summaries. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }
}
