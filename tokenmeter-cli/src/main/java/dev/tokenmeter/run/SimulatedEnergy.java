package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.slo.RunAnalysis;
import dev.tokenmeter.core.slo.SloReport;
import dev.tokenmeter.report.GpuWords;
import dev.tokenmeter.scrape.GpuFigures;
import dev.tokenmeter.scrape.GpuStage;
import dev.tokenmeter.simulator.engine.EnergyMeter;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.GpuPower;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * {@code simulate}'s energy: each stage's GPU figures from the engine's {@link EnergyMeter} over
 * its window, printed after the stage's table, and at the end the energy-optimal stage (the least
 * joules per output token among the stages that met the SLO, or among all without one).
 * docs/ENERGY.md, "Power and energy".
 */
final class SimulatedEnergy {
  private SimulatedEnergy() {}

  /** Stage {@code r}'s figures from {@code meter} (null when the GPU has no power data: null). */
  static GpuStage stage(EnergyMeter meter, StageResult r, double pricePerKwh) {
    if (meter == null || r.window().startOffsetNanos() < 0) {
      return null;
    }
    long from = r.stageStartNanos() + r.window().startOffsetNanos();
    long to = r.stageStartNanos() + r.window().endOffsetNanos();
    EnergyMeter.Span s = meter.span(from, to);
    if (!(s.seconds() > 0)) {
      return null;
    }
    return GpuFigures.modelled(meter.gpus(), s.seconds(), s.joules(), s.peakWatts(), s.busyShare(),
        s.computeShare(), s.memoryShare(), r.throughput().windowOutputTokens(),
        r.throughput().requestsPerSecond() * s.seconds(), pricePerKwh);
  }

  /** The last stage's line, or (once, after the first stage) why there is none. */
  static void print(PrintStream out, List<GpuStage> stages, EngineConfig config, String currency) {
    GpuStage last = stages.get(stages.size() - 1);
    if (last != null) {
      out.println(GpuWords.stage(last, currency) + " [power model: "
          + GpuPower.of(config.gpu().id()).map(p -> p.tdpSource()).orElse("") + "]");
    } else if (stages.size() == 1 && GpuPower.of(config.gpu().id()).isEmpty()) {
      out.println("Energy: unknown for GPU " + config.gpu().id() + " (no power data for it; docs/ENERGY.md,"
          + " \"Power and energy\")");
    }
  }

  /** The energy-optimal stage in words; nothing when fewer than two stages have energy. */
  static void printOptimal(PrintStream out, List<GpuStage> stages, List<StageResult> results, RunAnalysis analysis) {
    SloReport slo = analysis.slo();
    int best = -1;
    int candidates = 0;
    for (int i = 0; i < Math.min(stages.size(), results.size()); i++) {
      GpuStage g = stages.get(i);
      boolean met = slo == null || (i < slo.stages().size() && slo.stages().get(i).passed());
      if (g != null && g.joulesPerOutputToken() > 0 && met) {
        candidates++;
        if (best < 0 || g.joulesPerOutputToken() < stages.get(best).joulesPerOutputToken()) {
          best = i;
        }
      }
    }
    if (candidates < 2 && slo == null) {
      return;
    }
    out.println();
    if (best < 0) {
      out.println("Energy-optimal load: none, no stage met the SLO");
      return;
    }
    GpuStage g = stages.get(best);
    out.println(String.format(Locale.ROOT, "Energy-optimal load%s: %s, %.3f J per output token (%,.0f tokens/s per kW)",
        slo == null ? "" : " within the SLO", results.get(best).label(), g.joulesPerOutputToken(),
        g.outputTokensPerSecondPerKw()));
  }
}
