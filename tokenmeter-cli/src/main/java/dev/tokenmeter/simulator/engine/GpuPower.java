package dev.tokenmeter.simulator.engine;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The power model of one accelerator, keyed by its preset id ({@link GpuSpec#id()}): board power
 * at idle and at its limit (TDP), with sources. Kept apart from {@link GpuSpec} on purpose: the GPU
 * presets and their power data are curated separately, and a GPU preset with no entry here simply
 * has no energy figures ({@link #of} is empty). Immutable, thread-safe.
 *
 * <p>The model ({@link #watts}): a GPU draws its idle power, plus a share of (TDP − idle) that
 * follows what an iteration keeps busy: {@code share = min(1, u_c + MEMORY_WEIGHT × u_m)}, where
 * {@code u_c} is the share of the iteration's time the tensor cores work at the rate the engine
 * reaches (its compute time c over the iteration's duration) and {@code u_m} the share HBM streams
 * at the engine's bandwidth (its memory time m plus sampling, over the duration). Host time
 * (scheduling, launches) counts as idle. docs/ENERGY.md, "Power and energy".
 *
 * <pre>{@code
 * GpuPower p = GpuPower.of("h100-sxm").orElseThrow();
 * p.watts(0.05, 0.9);   // a memory-bound decode step: 70 + 630 × (0.05 + 0.6 × 0.9) = 442 W
 * }</pre>
 *
 * @param gpuId the GPU preset's id
 * @param tdpWatts the board's power limit (thermal design power), from its datasheet
 * @param idleWatts power drawn with nothing running
 * @param tdpSource where the TDP comes from
 * @param idleSource where the idle power comes from ({@link #IDLE_DEFAULT} when stated, not measured)
 */
public record GpuPower(String gpuId, double tdpWatts, double idleWatts, String tdpSource, String idleSource) {

  /*
   * design notes
   * - Why TDP and not a fitted curve: datasheets give TDP for every GPU; published power curves
   *   of LLM serving exist for a few (ML.ENERGY leaderboard, Patel et al. "Characterizing Power
   *   Management Opportunities for LLMs in the Cloud", ASPLOS 2024) and agree on the shape:
   *   prefill (compute-bound) runs at or near the power limit, decode (memory-bound) well below
   *   it. A weight of 0.6 on memory traffic puts a saturated decode step at idle + 0.6 × (TDP −
   *   idle), about 60 % of TDP on an H100 SXM (442 W of 700 W); a step that saturates the
   *   tensor cores reaches TDP. MEMORY_WEIGHT is a stated assumption, not a fit.
   * - Idle: without a measurement per GPU, 10 % of TDP is the stated default (an idle H100 SXM
   *   reads about 70 W in nvidia-smi, 10 % of its 700 W).
   */

  /** Weight of HBM streaming in the dynamic share: a stated assumption (see the design notes). */
  public static final double MEMORY_WEIGHT = 0.6;

  /** Idle power as a share of TDP when no measurement is given. */
  public static final double IDLE_SHARE = 0.10;

  /** The idle source of an entry that uses {@link #IDLE_SHARE}. */
  public static final String IDLE_DEFAULT = "stated default: 10% of TDP (not measured)";

  public GpuPower {
    Objects.requireNonNull(gpuId, "gpuId");
    Objects.requireNonNull(tdpSource, "tdpSource");
    Objects.requireNonNull(idleSource, "idleSource");
    if (!(tdpWatts > 0) || !(idleWatts >= 0) || idleWatts >= tdpWatts) {
      throw new IllegalArgumentException("GPU " + gpuId + ": need 0 <= idle < TDP, got idle " + idleWatts
          + " W, TDP " + tdpWatts + " W");
    }
  }

  private static GpuPower tdp(String id, double watts, String source) {
    return new GpuPower(id, watts, watts * IDLE_SHARE, source, IDLE_DEFAULT);
  }

  private static final String NV = "NVIDIA ";
  private static final List<GpuPower> TABLE = List.of(
      tdp("a100-40gb", 400, NV + "A100 datasheet: 400 W (SXM)"),
      tdp("a100-80gb", 400, NV + "A100 datasheet: 400 W (SXM)"),
      tdp("h100-sxm", 700, NV + "H100 datasheet: up to 700 W (SXM)"),
      tdp("h100-pcie", 350, NV + "H100 datasheet: 300-350 W (PCIe)"),
      tdp("h200", 700, NV + "H200 datasheet: up to 700 W (SXM)"),
      tdp("l40s", 350, NV + "L40S datasheet: 350 W"),
      tdp("l4", 72, NV + "L4 datasheet: 72 W"),
      tdp("mi300x", 750, "AMD Instinct MI300X data sheet: 750 W"),
      tdp("b200", 1000, NV + "HGX B200 datasheet: up to 1,000 W per GPU"),
      tdp("b300", 1100, NV + "HGX B300 datasheet: up to 1,100 W per GPU"),
      tdp("gb200", 1200, NV + "GB200 NVL72 datasheet: up to 1,200 W per Blackwell GPU"),
      tdp("mi325x", 1000, "AMD Instinct MI325X data sheet: 1,000 W"),
      tdp("mi355x", 1400, "AMD Instinct MI355X data sheet: 1,400 W (liquid-cooled)"),
      tdp("h20", 400, NV + "H20 product brief: 400 W"),
      tdp("rtx-pro-6000", 600, NV + "RTX PRO 6000 Blackwell Server Edition datasheet: up to 600 W"));

  private static final Map<String, GpuPower> BY_ID =
      TABLE.stream().collect(Collectors.toUnmodifiableMap(GpuPower::gpuId, Function.identity()));

  /** Every entry, in a stable order. */
  public static List<GpuPower> all() {
    return TABLE;
  }

  /** The power data of the GPU preset {@code gpuId} (any case); empty when there is none. */
  public static Optional<GpuPower> of(String gpuId) {
    return Optional.ofNullable(BY_ID.get(gpuId.trim().toLowerCase(Locale.ROOT)));
  }

  /**
   * One GPU's power while its tensor cores are busy {@code computeUtil} of the time and its memory
   * {@code memoryUtil} (each 0..1, clamped), in watts.
   */
  public double watts(double computeUtil, double memoryUtil) {
    return idleWatts + (tdpWatts - idleWatts) * dynamicShare(computeUtil, memoryUtil);
  }

  /** {@code min(1, u_c + MEMORY_WEIGHT × u_m)}, each utilisation clamped to 0..1. */
  public static double dynamicShare(double computeUtil, double memoryUtil) {
    return Math.min(1, clamp(computeUtil) + MEMORY_WEIGHT * clamp(memoryUtil));
  }

  private static double clamp(double u) {
    return u > 1 ? 1 : u > 0 ? u : 0;
  }
}
