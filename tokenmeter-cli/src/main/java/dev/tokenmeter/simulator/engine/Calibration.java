package dev.tokenmeter.simulator.engine;

/**
 * The constants fitted to published measurements (docs/SIMULATOR.md, Accuracy): one MFU and one
 * MBU for every engine, the smooth roofline's k, each engine profile's two host overheads, and
 * what the ROCm platform adds to them (fitted on the MI300X points alone, the rest on the NVIDIA
 * points). Written from the fit
 * of every source together; {@code AccuracyFitTest} refits them and fails when they differ from
 * these, so a change of model or data cannot leave them stale.
 */
public final class Calibration {
  /** Share of the GPU's achievable matrix rate ({@link AchievableMatmul}) reached by compute-bound work. */
  public static final double MFU = 0.725;

  /** Share of the peak memory bandwidth reached streaming weights and KV cache. */
  public static final double MBU = 0.88;

  /**
   * k of the smooth roofline (c^k + m^k)^(1/k) ({@link Roofline}): chosen from {1, 2, 3, 4, ∞} as
   * the candidate whose fixed point has the least fit objective (docs/ACCURACY.md, "Against the
   * targets"); each held-out fold chooses its own the same way.
   */
  public static final double OVERLAP_EXPONENT = 3;

  public static final long VLLM_ITERATION_NANOS = 2_000_000L;
  public static final long VLLM_PER_SEQUENCE_NANOS = 7_500L;
  public static final long SGLANG_ITERATION_NANOS = 2_900_000L;
  public static final long SGLANG_PER_SEQUENCE_NANOS = 135_000L;
  public static final long TRT_LLM_ITERATION_NANOS = 5_500_000L;
  public static final long TRT_LLM_PER_SEQUENCE_NANOS = 15_000L;
  public static final long LMDEPLOY_ITERATION_NANOS = 1_600_000L;
  public static final long LMDEPLOY_PER_SEQUENCE_NANOS = 52_500L;

  /** What the ROCm stack adds per iteration and per sequence to any profile ({@link Platform}). */
  public static final long ROCM_ITERATION_NANOS = 3_700_000L;
  public static final long ROCM_PER_SEQUENCE_NANOS = 92_500L;

  /** Which data the constants were fitted on: the dataset and its size. */
  public static final String FITTED_ON =
      "src/test/resources/accuracy/published-points.json: 293 points, 11 sources";

  private Calibration() {}
}
