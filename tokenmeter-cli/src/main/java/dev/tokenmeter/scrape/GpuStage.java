package dev.tokenmeter.scrape;

import java.util.List;

/**
 * What the GPUs did during one stage (summary.json {@code stages[].gpu}): power, utilisation and
 * memory over the measurement window, the energy drawn in it and what it cost per output token,
 * and the readings over the whole stage. Built by {@link GpuFigures}. NaN where the source does not
 * report a value or the window has none. Immutable. docs/METRICS.md, "GPU power and energy".
 *
 * @param source where the figures come from
 * @param gpus GPUs read
 * @param windowReadings readings that fell inside the window
 * @param windowSeconds the window's length
 * @param powerMeanWatts all GPUs' power together, mean over the window's readings
 * @param powerPeakWatts the highest such total in the window
 * @param utilMeanPercent utilisation, mean over GPUs and the window's readings, 0..100
 * @param utilPeakPercent the highest mean over GPUs of one reading
 * @param memoryMeanMib memory used, all GPUs together, mean
 * @param memoryPeakMib the highest such total
 * @param smClockMeanMhz SM clock, mean over GPUs and readings
 * @param smActiveMean SM active, mean, 0..1
 * @param dramActiveMean DRAM active, mean, 0..1
 * @param energyJoules energy all GPUs drew in the window
 * @param energySource how: {@code "counter"} (the energy counter), {@code "integrated power"},
 *     {@code "mixed"} (some GPUs each way) or {@code "model"} (simulate)
 * @param joulesPerOutputToken energy / output tokens of the window
 * @param joulesPerRequest energy / completed requests of the window
 * @param outputTokensPerSecondPerKw output tokens/s per kW of mean power (energy / window length)
 * @param energyCostPerMillionOutputTokens energy of 1M output tokens at {@code --power-price}
 *     per kWh; NaN without a price
 * @param perGpu each GPU's mean power and energy
 * @param series the readings over the whole stage
 */
public record GpuStage(
    GpuKind source,
    int gpus,
    int windowReadings,
    double windowSeconds,
    double powerMeanWatts,
    double powerPeakWatts,
    double utilMeanPercent,
    double utilPeakPercent,
    double memoryMeanMib,
    double memoryPeakMib,
    double smClockMeanMhz,
    double smActiveMean,
    double dramActiveMean,
    double energyJoules,
    String energySource,
    double joulesPerOutputToken,
    double joulesPerRequest,
    double outputTokensPerSecondPerKw,
    double energyCostPerMillionOutputTokens,
    List<PerGpu> perGpu,
    Series series) {

  public GpuStage {
    perGpu = List.copyOf(perGpu);
  }

  /**
   * One GPU over the window.
   *
   * @param id its key ({@link GpuReading#gpus()})
   * @param powerMeanWatts mean power over the window's readings
   * @param energyJoules energy in the window; NaN when neither counter nor power was read
   * @param energySource {@code "counter"} or {@code "integrated power"}
   */
  public record PerGpu(String id, double powerMeanWatts, double energyJoules, String energySource) {}

  /**
   * Readings over the whole stage, aligned with the client's series by their time from the stage
   * start: all GPUs' power together (each GPU's last reading held) and their mean utilisation.
   */
  public record Series(double[] offsetSeconds, double[] powerWatts, double[] utilPercent) {
    public static Series empty() {
      return new Series(new double[0], new double[0], new double[0]);
    }
  }
}
