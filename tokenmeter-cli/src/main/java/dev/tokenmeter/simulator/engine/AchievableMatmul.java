package dev.tokenmeter.simulator.engine;

import java.util.Map;

/**
 * How much of a GPU's datasheet matrix peak a matmul can reach at all: the maximum achievable
 * matmul FLOPS (MAMF) measured by a brute-force search over shapes, as a share of the dense peak.
 * The roofline's compute rate is peak × this share × the fitted MFU, so MFU is the share of what
 * the GPU can reach, and a GPU that reaches less of its datasheet (the MI300X) or more (the
 * A100) is not averaged into one constant. Stateless.
 *
 * <pre>
 * design notes
 * - Source: stas00/ml-engineering, compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS
 *   comparison table", at commit b9e29720eebd4aa946fa9678975385efbc90a777 (mamf-finder.py, mean
 *   of 100 iterations after 50 warm-ups at the best shape found; torch 2.5–2.7, CUDA 12.4–12.8,
 *   ROCm 6.3). BF16: A100 SXM 271.2 of 312 TFLOPS (86.9%), H100 SXM 794.5 of 989 (80.3%, "H200 is
 *   the same"), MI300X 668.4 of 1300 (51.4%); FP8: H100 SXM 1402.6 of 1979 (70.9%), H200 SXM
 *   1453.4 of 1979 (73.4%). Measured by their authors, not fitted here.
 * - A GPU the table does not measure takes the median of its NVIDIA rows: 80.3% for BF16 (A100 SXM,
 *   GH200, A100 PCIe, H100, B300, B200, GB200) and 73.95% for FP8 (GH200, B200, B300, H200,
 *   GB200, H100). The L40S, L4, RTX 4090 and H100 PCIe are among them.
 * - A GPU measured in one precision only takes that share for the other (the MI300X's FP8, the
 *   A100's 8-bit integer path): the gap to its datasheet is the device's and its software stack's,
 *   and the one measurement is the best evidence for it.
 * - The share follows the peak GpuSpec.peakFlopsPerSecond picks: 8-bit tensor cores (FP8, INT8)
 *   take the FP8 share, everything run at the BF16 peak the BF16 share.
 * - A GPU spec that gives its own shares (a --gpu-file's achievable_bf16_share and
 *   achievable_fp8_share, measured on the user's GPU) wins over the table, with the same rule for
 *   a precision it does not give.
 * </pre>
 */
public final class AchievableMatmul {

  /** Median BF16 share of the source's NVIDIA rows, for a GPU it does not measure. */
  public static final double DEFAULT_BF16_SHARE = 0.803;

  /** Median FP8 share of the source's NVIDIA rows, for a GPU it does not measure. */
  public static final double DEFAULT_FP8_SHARE = 0.7395;

  /** Measured shares by GPU preset id: {BF16, FP8}; NaN where the source has no figure. */
  private static final Map<String, double[]> MEASURED = Map.of(
      "a100-40gb", new double[] {0.869, Double.NaN},
      "a100-80gb", new double[] {0.869, Double.NaN},
      "h100-sxm", new double[] {0.803, 0.709},
      "h200", new double[] {0.803, 0.734},
      "mi300x", new double[] {0.514, Double.NaN});

  private AchievableMatmul() {}

  /** The share of {@code gpu}'s peak for {@code weights} that a matmul can reach, in (0, 1]. */
  public static double share(GpuSpec gpu, Precision weights) {
    boolean eightBit = switch (weights) {
      case FP8 -> gpu.fp8FlopsPerSecond() > 0;
      case INT8 -> gpu.int8OpsPerSecond() > 0;
      case BF16, FP16, INT4 -> false;
      // FP4 tensor cores: no MAMF measurement yet, the FP8 share stands in for them
      case FP4, MXFP4 -> gpu.fp4FlopsPerSecond() > 0;
    };
    double own = eightBit ? gpu.achievableFp8Share() : gpu.achievableBf16Share();
    double ownOther = eightBit ? gpu.achievableBf16Share() : gpu.achievableFp8Share();
    if (own > 0) {
      return own;
    }
    if (ownOther > 0) {
      return ownOther;
    }
    double[] m = MEASURED.get(gpu.id());
    if (m == null) {
      return eightBit ? DEFAULT_FP8_SHARE : DEFAULT_BF16_SHARE;
    }
    double wanted = eightBit ? m[1] : m[0];
    return Double.isNaN(wanted) ? (eightBit ? m[0] : m[1]) : wanted;
  }

  /**
   * Whether {@link #share} for this GPU rests on a measurement of it (its spec's own shares or the
   * table's row for its id), not on the median of other GPUs.
   */
  public static boolean measured(GpuSpec gpu) {
    return gpu.achievableBf16Share() > 0 || gpu.achievableFp8Share() > 0
        || MEASURED.containsKey(gpu.id());
  }
}
