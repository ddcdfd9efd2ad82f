package dev.tokenmeter.simulator.engine;

import java.util.Objects;

/**
 * One accelerator, by its vendor datasheet. Peak figures are dense (without 2:4 sparsity).
 *
 * @param id short name used on the command line ({@code h100-sxm})
 * @param name the product's name
 * @param memoryBytes device memory (HBM and GDDR capacities are binary: "80 GB" is 80 GiB)
 * @param memoryBandwidthBytesPerSecond peak device-memory bandwidth
 * @param bf16FlopsPerSecond dense BF16 tensor peak
 * @param fp8FlopsPerSecond dense FP8 tensor peak; 0 where the GPU has no FP8 tensor cores (FP8
 *     weights then run as W8A16 at the BF16 peak)
 * @param int8OpsPerSecond dense INT8 tensor peak
 * @param interconnectBytesPerSecond GPU-to-GPU bandwidth per direction (half the bidirectional
 *     datasheet figure), used for tensor-parallel all-reduces
 * @param interconnect what the link is ({@code "NVLink 4"}, {@code "PCIe Gen4 x16"})
 * @param source where the figures come from
 * @param achievableBf16Share the share of the BF16 peak a matmul reaches at all, measured for this
 *     GPU (e.g. with mamf-finder.py); 0 when not given ({@link AchievableMatmul} then decides)
 * @param achievableFp8Share the same for the 8-bit peak; 0 when not given
 * @param fp4FlopsPerSecond dense FP4 tensor peak (NVFP4, MXFP4); 0 where the GPU has no FP4 tensor
 *     cores (4-bit weights then run weight-only at the BF16 peak)
 */
public record GpuSpec(
    String id,
    String name,
    long memoryBytes,
    double memoryBandwidthBytesPerSecond,
    double bf16FlopsPerSecond,
    double fp8FlopsPerSecond,
    double int8OpsPerSecond,
    double interconnectBytesPerSecond,
    String interconnect,
    String source,
    double achievableBf16Share,
    double achievableFp8Share,
    double fp4FlopsPerSecond) {

  /** A GPU without FP4 tensor cores. */
  public GpuSpec(String id, String name, long memoryBytes, double memoryBandwidthBytesPerSecond,
      double bf16FlopsPerSecond, double fp8FlopsPerSecond, double int8OpsPerSecond,
      double interconnectBytesPerSecond, String interconnect, String source,
      double achievableBf16Share, double achievableFp8Share) {
    this(id, name, memoryBytes, memoryBandwidthBytesPerSecond, bf16FlopsPerSecond,
        fp8FlopsPerSecond, int8OpsPerSecond, interconnectBytesPerSecond, interconnect, source,
        achievableBf16Share, achievableFp8Share, 0);
  }

  /** A GPU whose achievable matmul shares come from {@link AchievableMatmul}'s table or defaults. */
  public GpuSpec(String id, String name, long memoryBytes, double memoryBandwidthBytesPerSecond,
      double bf16FlopsPerSecond, double fp8FlopsPerSecond, double int8OpsPerSecond,
      double interconnectBytesPerSecond, String interconnect, String source) {
    this(id, name, memoryBytes, memoryBandwidthBytesPerSecond, bf16FlopsPerSecond,
        fp8FlopsPerSecond, int8OpsPerSecond, interconnectBytesPerSecond, interconnect, source, 0, 0);
  }

  public GpuSpec {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    if (memoryBytes <= 0
        || !(memoryBandwidthBytesPerSecond > 0)
        || !(bf16FlopsPerSecond > 0)
        || !(interconnectBytesPerSecond > 0)
        || fp8FlopsPerSecond < 0
        || int8OpsPerSecond < 0
        || fp4FlopsPerSecond < 0) {
      throw new IllegalArgumentException("GPU " + id + ": memory, bandwidth and peaks must be > 0");
    }
    if (!(achievableBf16Share >= 0 && achievableBf16Share <= 1)
        || !(achievableFp8Share >= 0 && achievableFp8Share <= 1)) {
      throw new IllegalArgumentException("GPU " + id + ": achievable shares must be in (0, 1], or 0");
    }
  }

  /** All-reduce latency over a direct GPU link (NVLink, Infinity Fabric): 5 µs. */
  public static final long LINK_ALL_REDUCE_NANOS = 5_000L;

  /** All-reduce latency over PCIe: 20 µs. */
  public static final long PCIE_ALL_REDUCE_NANOS = 20_000L;

  /**
   * Fixed latency of one small tensor-parallel all-reduce on this GPU's interconnect: 20 µs over
   * PCIe (NCCL inside a CUDA graph, 4 ranks, 4–16 KB: 19.4–22.3 µs, haohervchb/sglang-V100 pull
   * request 2), 5 µs over NVLink and Infinity Fabric (the custom all-reduce on H100 at TP 2–8, 4 KB:
   * 3.7–5.7 µs, sgl-project/sglang pull request 2904; Infinity Fabric assumed alike).
   */
  public long allReduceLatencyNanos() {
    return interconnect != null && interconnect.contains("PCIe") ? PCIE_ALL_REDUCE_NANOS : LINK_ALL_REDUCE_NANOS;
  }

  /**
   * The matrix peak a model whose weights are stored at {@code weights} runs at: FP8 and INT8 use
   * the 8-bit tensor cores where the GPU has them; FP4 and MXFP4 the FP4 tensor cores where it
   * has them; BF16, FP16, INT4 and 4-bit floats on a GPU without FP4 cores (weight-only,
   * dequantized to BF16) use the BF16 peak.
   */
  public double peakFlopsPerSecond(Precision weights) {
    return switch (weights) {
      case BF16, FP16, INT4 -> bf16FlopsPerSecond;
      case FP4, MXFP4 -> fp4FlopsPerSecond > 0 ? fp4FlopsPerSecond : bf16FlopsPerSecond;
      case FP8 -> fp8FlopsPerSecond > 0 ? fp8FlopsPerSecond : bf16FlopsPerSecond;
      case INT8 -> int8OpsPerSecond > 0 ? int8OpsPerSecond : bf16FlopsPerSecond;
    };
  }
}
