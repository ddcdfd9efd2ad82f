package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.scrape.GpuStage;
import java.io.IOException;

/**
 * Writes {@code stages[].gpu} of summary.json (schema 1.9): the GPUs' power, utilisation, memory
 * and energy over the stage, {@link GpuStage}. docs/METRICS.md, "GPU power and energy". Stateless.
 */
final class GpuStageJson {
  private GpuStageJson() {}

  /** Writes {@code s} as the field {@code gpu}. */
  static void write(JsonGenerator g, GpuStage s) throws IOException {
    g.writeObjectFieldStart("gpu");
    g.writeStringField("source", s.source().wireName());
    g.writeNumberField("gpus", s.gpus());
    g.writeNumberField("window_readings", s.windowReadings());
    StageJsonWriter.number(g, "power_mean_w", s.powerMeanWatts());
    StageJsonWriter.number(g, "power_peak_w", s.powerPeakWatts());
    StageJsonWriter.number(g, "util_mean_pct", s.utilMeanPercent());
    StageJsonWriter.number(g, "util_peak_pct", s.utilPeakPercent());
    StageJsonWriter.number(g, "memory_used_mean_mib", s.memoryMeanMib());
    StageJsonWriter.number(g, "memory_used_peak_mib", s.memoryPeakMib());
    StageJsonWriter.number(g, "sm_clock_mean_mhz", s.smClockMeanMhz());
    StageJsonWriter.number(g, "sm_active_mean", s.smActiveMean());
    StageJsonWriter.number(g, "dram_active_mean", s.dramActiveMean());
    StageJsonWriter.number(g, "energy_j", s.energyJoules());
    g.writeStringField("energy_source", s.energySource());
    StageJsonWriter.number(g, "joules_per_output_token", s.joulesPerOutputToken());
    StageJsonWriter.number(g, "joules_per_request", s.joulesPerRequest());
    StageJsonWriter.number(g, "output_tokens_per_s_per_kw", s.outputTokensPerSecondPerKw());
    StageJsonWriter.number(g, "energy_cost_per_1m_output_tokens", s.energyCostPerMillionOutputTokens());
    g.writeArrayFieldStart("per_gpu");
    for (GpuStage.PerGpu p : s.perGpu()) {
      g.writeStartObject();
      g.writeStringField("id", p.id());
      StageJsonWriter.number(g, "power_mean_w", p.powerMeanWatts());
      StageJsonWriter.number(g, "energy_j", p.energyJoules());
      g.writeStringField("energy_source", p.energySource());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeObjectFieldStart("series");
    array(g, "offset_s", s.series().offsetSeconds());
    array(g, "power_w", s.series().powerWatts());
    array(g, "util_pct", s.series().utilPercent());
    g.writeEndObject();
    g.writeEndObject();
  }

  private static void array(JsonGenerator g, String name, double[] values) throws IOException {
    g.writeArrayFieldStart(name);
    for (double v : values) {
      if (Double.isFinite(v)) {
        g.writeNumber(Math.round(v * 1000) / 1000.0);
      } else {
        g.writeNull();
      }
    }
    g.writeEndArray();
  }
}
