package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.scrape.GpuKind;
import dev.tokenmeter.scrape.GpuStage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes and reads {@code stages[].gpu} of summary.json (schema 1.9): the GPUs' power, utilisation, memory
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

  /** {@code stages[].gpu} read back; null when {@code node} is absent or null. */
  static GpuStage read(JsonNode node) {
    if (node == null || !node.isObject()) {
      return null;
    }
    List<GpuStage.PerGpu> perGpu = new ArrayList<>();
    node.path("per_gpu").forEach(p -> perGpu.add(new GpuStage.PerGpu(p.path("id").asText(""),
        num(p.path("power_mean_w")), num(p.path("energy_j")), p.path("energy_source").asText(""))));
    JsonNode series = node.path("series");
    GpuKind source = GpuKind.ofWireName(node.path("source").asText(""));
    return new GpuStage(source == null ? GpuKind.DCGM : source, node.path("gpus").asInt(0),
        node.path("window_readings").asInt(0), Double.NaN, num(node.path("power_mean_w")),
        num(node.path("power_peak_w")), num(node.path("util_mean_pct")), num(node.path("util_peak_pct")),
        num(node.path("memory_used_mean_mib")), num(node.path("memory_used_peak_mib")),
        num(node.path("sm_clock_mean_mhz")), num(node.path("sm_active_mean")), num(node.path("dram_active_mean")),
        num(node.path("energy_j")), node.path("energy_source").asText(""), num(node.path("joules_per_output_token")),
        num(node.path("joules_per_request")), num(node.path("output_tokens_per_s_per_kw")),
        num(node.path("energy_cost_per_1m_output_tokens")), perGpu, new GpuStage.Series(
            doubles(series.path("offset_s")), doubles(series.path("power_w")), doubles(series.path("util_pct"))));
  }

  private static double num(JsonNode n) {
    return n.isNumber() ? n.asDouble() : Double.NaN;
  }

  private static double[] doubles(JsonNode a) {
    double[] out = new double[a.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = num(a.get(i));
    }
    return out;
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
