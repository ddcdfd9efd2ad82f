package dev.tokenmeter.cli;

import dev.tokenmeter.simulator.engine.DisaggregatedEngine;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Speculation;
import picocli.CommandLine.Option;

/**
 * {@code simulate}'s disaggregated prefill and decode (docs/PLANNER.md, "Disaggregated prefill
 * and decode"): a prefill pool and a decode pool of the same model and GPU, and the link between.
 */
final class DisaggOptions {
  @Option(names = "--prefill-gpus", paramLabel = "N", description = "Disaggregated prefill/decode: the prefill pool, one instance over N GPUs (tensor parallel, or as --dp-attention/--expert-parallel say) that runs prompts only, whole (chunked prefill off), batched while they fit the engine's token budget. Needs --decode-gpus; replaces --gpus.")
  Integer prefillGpus;

  @Option(names = "--decode-gpus", paramLabel = "M", description = "Disaggregated prefill/decode: the decode pool, one instance over M GPUs that takes each request's KV cache from the prefill pool when it has room for it and runs decode steps only, with no prompt in them. Needs --prefill-gpus.")
  Integer decodeGpus;

  @Option(names = "--kv-transfer-gbps", paramLabel = "G", description = "Bandwidth of the link the KV cache moves over between the pools, in gigabits per second per GPU (default: the GPU's interconnect, e.g. NVLink 4's 450 GB/s = 3600, when both pools fit one NVLink domain of 8 GPUs, 72 for gb200; else 400, a ConnectX-7 400 Gb/s RDMA card per GPU).")
  Double kvTransferGbps;

  /** Whether the pools are disaggregated. */
  boolean enabled() {
    return prefillGpus != null || decodeGpus != null || kvTransferGbps != null;
  }

  /**
   * The two pools, each {@code engine}'s deployment on its own GPU count.
   *
   * @param gpusGiven whether --gpus was given too (refused: each pool has its own)
   * @throws UsageException for a missing, conflicting or out-of-range flag, or a pool the model
   *     does not fit
   */
  DisaggregatedEngine.Pools pools(EngineOptions engine, boolean gpusGiven) {
    if (prefillGpus == null || decodeGpus == null) {
      throw new UsageException("disaggregated prefill/decode needs both --prefill-gpus N and --decode-gpus M"
          + (kvTransferGbps != null ? " (--kv-transfer-gbps goes with them)" : ""));
    }
    if (gpusGiven) {
      throw new UsageException("--gpus is one engine's GPU count: with --prefill-gpus and --decode-gpus give each pool's, not --gpus");
    }
    if (kvTransferGbps != null && !(kvTransferGbps > 0)) {
      throw new UsageException("--kv-transfer-gbps must be > 0 (gigabits per second per GPU), got " + kvTransferGbps);
    }
    EngineConfig prefill = pool("prefill", "--prefill-gpus", prefillGpus, engine).withSpeculation(Speculation.NONE);
    EngineConfig decode = pool("decode", "--decode-gpus", decodeGpus, engine);
    return DisaggregatedEngine.Pools.of(prefill, decode, kvTransferGbps == null ? null : kvTransferGbps * 1e9 / 8);
  }

  private static EngineConfig pool(String name, String option, int gpus, EngineOptions engine) {
    int saved = engine.gpus;
    engine.gpus = gpus;
    try {
      return engine.config();
    } catch (UsageException e) {
      throw new UsageException(name + " pool (" + option + " " + gpus + "): "
          + e.getMessage().replace("(--gpus ", "(" + option + " ").replace("--gpus", option));
    } finally {
      engine.gpus = saved;
    }
  }
}
