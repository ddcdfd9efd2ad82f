package dev.tokenmeter.run;

import dev.tokenmeter.simulator.engine.DisaggregatedEngine;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.report.RunSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** {@code simulate}'s lines about disaggregated prefill and decode pools (docs/PLANNER.md). */
final class PoolsReport {
  private PoolsReport() {}

  /**
   * The deployment, once at the start: {@code disaggregated: prefill 4 x h100-sxm (KV cache
   * 1,200,000 tokens), decode 4 x h100-sxm (...); KV moves over NVLink 4 at 450.0 GB/s a GPU,
   * 320.0 KB a prompt token; ...}.
   */
  static String describe(DisaggregatedEngine e) {
    DisaggregatedEngine.Pools p = e.pools();
    return String.format(Locale.ROOT,
        "disaggregated: prefill pool %s (KV cache %d tokens, chunked prefill off), decode pool %s (KV cache %d"
            + " tokens); the KV cache moves over %s at %.1f GB/s a GPU, %.1f KB a prompt token; the first token"
            + " reaches the client when its KV has landed (docs/PLANNER.md)",
        pool(p.prefill()), e.prefill().roofline().kvCapacityTokens(), pool(p.decode()),
        e.decode().roofline().kvCapacityTokens(), p.link(), p.transferBytesPerSecond() / 1e9,
        p.transferBytesPerToken() / 1e3);
  }

  /**
   * A stage's pools: {@code pools: prefill busy 41%, KV mean 3% peak 9%, queue max 2 | handoff 812
   * requests, wait mean 0.00 ms, transfer mean 1.31 ms | decode busy 99%, KV mean 61% peak 80%}.
   */
  static String stageLine(DisaggregatedEngine.Pools p, DisaggregatedEngine.Window w, long elapsedNanos) {
    return String.format(Locale.ROOT,
        "  pools: prefill %d GPUs busy %.0f%%, KV mean %.0f%% peak %.0f%%, queue max %d | handoff %d requests,"
            + " wait for decode room mean %.2f ms (queue max %d), transfer mean %.2f ms | decode %d GPUs busy"
            + " %.0f%%, KV mean %.0f%% peak %.0f%%",
        p.prefill().tensorParallel(), 100 * w.prefill().utilization(elapsedNanos),
        100 * w.prefill().meanKvUsage(), 100 * w.prefill().peakKvUsage(), w.maxPrefillQueue(), w.handoffs(),
        w.meanHandoffWaitMs(), w.maxHandoffQueue(), w.meanTransferMs(), p.decode().tensorParallel(),
        100 * w.decode().utilization(elapsedNanos), 100 * w.decode().meanKvUsage(),
        100 * w.decode().peakKvUsage());
  }

  /** summary.json's {@code settings.simulation.disaggregation}; null for one engine. */
  static RunSummary.Disaggregation summary(
      DisaggregatedEngine e, List<DisaggregatedEngine.Window> windows, List<Long> stageNanos) {
    if (e == null) {
      return null;
    }
    DisaggregatedEngine.Pools p = e.pools();
    List<RunSummary.PoolStage> stages = new ArrayList<>();
    for (int i = 0; i < windows.size(); i++) {
      DisaggregatedEngine.Window w = windows.get(i);
      long elapsed = stageNanos.get(i);
      stages.add(new RunSummary.PoolStage(i + 1, w.prefill().utilization(elapsed), w.prefill().meanKvUsage(),
          w.prefill().peakKvUsage(), w.maxPrefillQueue(), w.handoffs(), w.meanHandoffWaitMs(), w.maxHandoffQueue(),
          w.meanTransferMs(), w.decode().utilization(elapsed), w.decode().meanKvUsage(), w.decode().peakKvUsage()));
    }
    return new RunSummary.Disaggregation(p.prefill().tensorParallel(), p.decode().tensorParallel(), p.link(),
        p.transferBytesPerSecond() * 8 / 1e9, p.transferBytesPerToken(), e.prefill().roofline().kvCapacityTokens(),
        e.decode().roofline().kvCapacityTokens(), stages);
  }

  private static String pool(EngineConfig c) {
    return c.tensorParallel() + " x " + c.gpu().id()
        + (c.parallelism().dataParallelAttention() > 1 ? " DP attention " + c.parallelism().dataParallelAttention() : "")
        + (c.parallelism().expertParallel() > 1 ? " EP " + c.parallelism().expertParallel() : "");
  }
}
