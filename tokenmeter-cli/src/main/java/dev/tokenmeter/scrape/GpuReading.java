package dev.tokenmeter.scrape;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One reading of the GPUs' telemetry ({@code --gpu-metrics}): per GPU, what its exporter (or
 * {@code nvidia-smi}) reported, in tokenmeter's units. Immutable.
 *
 * @param atNanos when the answer arrived (ticker time)
 * @param gpus per GPU, by its key ({@code "0 GPU-5fd4..."}; prefixed by the exporter's
 *     {@code host:port} when several are scraped), in exporter order
 */
public record GpuReading(long atNanos, Map<String, Gpu> gpus) {

  public GpuReading {
    gpus = Collections.unmodifiableMap(new LinkedHashMap<>(gpus));
  }

  /**
   * One GPU's values; NaN where its source does not report one.
   *
   * @param powerWatts board power draw, W
   * @param utilPercent share of time a kernel ran (DCGM_FI_DEV_GPU_UTIL, AMD's GFX activity), 0..100
   * @param memoryUsedMib device memory in use, MiB
   * @param smClockMhz SM (AMD: GFX system) clock, MHz
   * @param smActive share of SM cycles with a warp resident (DCGM_FI_PROF_SM_ACTIVE), 0..1
   * @param dramActive share of cycles the memory interface was busy (DCGM_FI_PROF_DRAM_ACTIVE; AMD's
   *     UMC activity), 0..1
   * @param energyJoules the board's energy counter (since boot or driver load), J
   */
  public record Gpu(double powerWatts, double utilPercent, double memoryUsedMib, double smClockMhz,
      double smActive, double dramActive, double energyJoules) {}
}
