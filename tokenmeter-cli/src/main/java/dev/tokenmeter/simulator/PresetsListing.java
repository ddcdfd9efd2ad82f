package dev.tokenmeter.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.simulator.engine.AchievableMatmul;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.EngineProfile;
import dev.tokenmeter.simulator.engine.GpuSpec;
import dev.tokenmeter.simulator.engine.HeldOutAccuracy;
import dev.tokenmeter.simulator.engine.ModelSpec;
import dev.tokenmeter.simulator.engine.Platform;
import dev.tokenmeter.simulator.engine.Precision;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.simulator.engine.Variation;
import java.io.IOException;
import java.io.StringWriter;
import java.util.List;
import java.util.Locale;

/**
 * The simulator's model and accelerator presets with their figures, the engine profiles and the
 * engine's defaults, as {@code tokenmeter sim presets} prints them: tables, or JSON whose {@code
 * models} and {@code gpus} objects are what {@link SpecFiles} reads back from {@code --model-file}
 * and {@code --gpu-file}. Stateless.
 */
public final class PresetsListing {
  private PresetsListing() {}

  /** {@code "MLA 512+64, 1+256 experts (8), 3 dense"}: what the shape columns do not show. */
  static String architecture(ModelSpec m) {
    var a = m.architecture();
    List<String> parts = new java.util.ArrayList<>();
    if (a.latentAttention()) {
      parts.add("MLA " + a.kvLoraRank() + "+" + a.qkRopeHeadDim());
    }
    if (m.mixtureOfExperts()) {
      parts.add((a.sharedExperts() > 0 ? a.sharedExperts() + "+" : "") + m.experts() + " experts ("
          + m.expertsPerToken() + " per token)" + (a.denseLayers() > 0 ? ", " + a.denseLayers()
          + " dense layers" : ""));
    }
    if (a.slidingLayers() > 0) {
      parts.add(a.slidingLayers() + " layers windowed to " + a.slidingWindow());
    }
    if (a.attentionWeightsWide()) {
      parts.add("experts only quantized");
    }
    if (a.tiedEmbeddings()) {
      parts.add("tied embeddings");
    }
    return parts.isEmpty() ? "dense" : String.join(", ", parts);
  }

  /**
   * The tables: models, accelerators, engine profiles, and the knobs every profile shares as
   * {@code defaults} (the default deployment) has them.
   */
  public static String tables(EngineConfig defaults) {
    EngineConfig e = defaults;
    StringBuilder sb = new StringBuilder();
    sb.append("Models\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "  %-16s %-45s %9s %9s %6s %6s %5s %7s %8s %10s %-6s  %s%n",
            "id", "name", "params", "active", "layers", "hidden", "kv_h", "head_d", "context",
            "KV/token", "dtype", "architecture"));
    for (ModelSpec m : Presets.models()) {
      sb.append(
          String.format(
              Locale.ROOT,
              "  %-16s %-45s %8.2fB %8.2fB %6d %6d %5d %7d %8d %6.0f KiB %-6s  %s%n",
              m.id(), m.name(), m.totalParams() / 1e9, m.activeParams() / 1e9, m.layers(),
              m.hiddenSize(), m.kvHeads(), m.headDim(), m.maxContextTokens(),
              m.kvBytesPerTokenPerGpu(Precision.BF16, 1) / 1024,
              m.architecture().nativeWeights().id(), architecture(m)));
    }
    sb.append("  KV/token in BF16 on one GPU; dtype: the checkpoint's weights (the default --precision)\n");
    sb.append("  sources:\n");
    for (ModelSpec m : Presets.models()) {
      sb.append(String.format(Locale.ROOT, "    %-16s %s%n", m.id(), m.source()));
    }
    sb.append("\nAccelerators (dense peaks)\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "  %-12s %-46s %7s %9s %10s %10s %10s %10s %12s  %s%n",
            "id", "name", "memory", "HBM TB/s", "BF16 TF/s", "FP8 TF/s", "INT8 TOP/s", "FP4 TF/s",
            "achievable", "interconnect"));
    for (GpuSpec g : Presets.gpus()) {
      sb.append(
          String.format(
              Locale.ROOT,
              "  %-12s %-46s %4d GiB %9.3f %10.1f %10s %10.1f %10s %12s  %s%n",
              g.id(), g.name(), g.memoryBytes() >> 30, g.memoryBandwidthBytesPerSecond() / 1e12,
              g.bf16FlopsPerSecond() / 1e12,
              g.fp8FlopsPerSecond() > 0
                  ? String.format(Locale.ROOT, "%.1f", g.fp8FlopsPerSecond() / 1e12)
                  : "-",
              g.int8OpsPerSecond() / 1e12,
              g.fp4FlopsPerSecond() > 0
                  ? String.format(Locale.ROOT, "%.1f", g.fp4FlopsPerSecond() / 1e12)
                  : "-",
              g.fp8FlopsPerSecond() > 0
                  ? String.format(Locale.ROOT, "%.3f/%.3f", AchievableMatmul.share(g, Precision.BF16),
                      AchievableMatmul.share(g, Precision.FP8))
                  : String.format(Locale.ROOT, "%.3f", AchievableMatmul.share(g, Precision.BF16)),
              g.interconnect()));
    }
    sb.append("  achievable: share of the BF16/FP8 peak a matmul reaches at all (measured, stas00/ml-engineering"
        + " MAMF table; unmeasured GPUs take its median; FP4 takes the FP8 share); --mfu is a share of peak x this\n");
    sb.append("  sources:\n");
    for (GpuSpec g : Presets.gpus()) {
      sb.append(String.format(Locale.ROOT, "    %-12s %s%n", g.id(), g.source()));
    }
    sb.append("\nEngine profiles (--engine; overheads fitted to published measurements, docs/SIMULATOR.md)\n");
    sb.append(String.format(Locale.ROOT, "  %-8s %-42s %-13s %-12s %9s %13s %6s %5s %11s %12s%n",
        "id", "engine", "scheduling", "admission", "max seqs", "budget", "graphs", "block",
        "per iter", "per seq"));
    for (EngineProfile p : EngineProfile.all()) {
      sb.append(String.format(Locale.ROOT, "  %-8s %-42s %-13s %-12s %4d/%-4d %6d/%-6d %6d %5d %9sms %10sms%n",
          p.id(), p.name(), p.scheduling().name().toLowerCase(Locale.ROOT),
          p.admission().name().toLowerCase(Locale.ROOT), p.maxNumSeqs(), p.smallGpuMaxNumSeqs(),
          p.maxBatchedTokens(), p.smallGpuMaxBatchedTokens(), p.graphMaxBatch(), p.blockTokens(),
          millis(p.iterationOverheadNanos()), millis(p.perSequenceNanos())));
    }
    for (Platform p : Platform.values()) {
      sb.append(String.format(Locale.ROOT, "  platform %s adds %sms per iteration + %sms per sequence%s%n",
          p.id(), millis(p.iterationExtraNanos()), millis(p.perSequenceExtraNanos()),
          p == Platform.CUDA ? " (NVIDIA GPUs: the profiles' own)" : " (AMD Instinct GPUs, fitted)"));
    }
    sb.append("  held out by source (median |error|, docs/SIMULATOR.md Accuracy): ")
        .append(HeldOutAccuracy.pooled()).append(" over ").append(HeldOutAccuracy.SOURCES.size())
        .append(" sources\n");
    for (EngineProfile p : EngineProfile.all()) {
      for (Platform platform : Platform.values()) {
        List<HeldOutAccuracy.Source> behind = HeldOutAccuracy.SOURCES.stream()
            .filter(x -> x.profile().equals(p.id()) && x.platform() == platform).toList();
        if (!behind.isEmpty()) {
          sb.append(String.format(Locale.ROOT, "    %s on %s: %s%n", p.id(),
              HeldOutAccuracy.platformName(platform), HeldOutAccuracy.sources(behind)));
        }
      }
    }
    sb.append("  models no fit has seen (fine-grained MoE, latent attention; docs/ACCURACY.md, Models the"
        + " fit never saw), median signed error (median |error|):\n");
    for (HeldOutAccuracy.Unseen u : HeldOutAccuracy.UNSEEN) {
      sb.append(String.format(Locale.ROOT, "    %s on %s: %s%n", u.model(), u.profile(),
          HeldOutAccuracy.signed(u.figures())));
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "  limits: GPUs of >= 70 GiB other than A100 / smaller ones. Every profile: --mfu %.3f"
                + "  --mbu %.2f (flags change them, and --iteration-overhead, --per-sequence-overhead)%n"
                + "  gpu_memory_utilization %.2f, reserve %d GiB per GPU (lmdeploy: its KV cache is"
                + " %.1f of the whole memory instead), blocks of the profile's tokens (default %d),"
                + " all-reduce latency %d us (NVLink, Infinity Fabric) or %d us (PCIe)%n"
                + "  variation (simulate): none by default; --variation: iteration time CV %.2f,"
                + " arrival jitter 0-%d ms (docs/SIMULATOR.md, Tails)%n",
            e.mfu(), e.mbu(), e.gpuMemoryUtilization(), e.reserveBytesPerGpu() >> 30,
            EngineProfile.LMDEPLOY.kvMemoryShare(), e.blockTokens(), GpuSpec.LINK_ALL_REDUCE_NANOS / 1_000,
            GpuSpec.PCIE_ALL_REDUCE_NANOS / 1_000, Variation.ESTIMATED_ITERATION_CV,
            Variation.ESTIMATED_ARRIVAL_JITTER_NANOS / 1_000_000));
    return sb.toString();
  }

  /** One held-out figure: the quantity, how many figures, median and p90 of |error| in %. */
  private static void figure(JsonGenerator g, HeldOutAccuracy.Quantity q, HeldOutAccuracy.Figure f)
      throws IOException {
    g.writeStartObject();
    g.writeStringField("quantity", q.jsonName());
    g.writeNumberField("figures", f.figures());
    g.writeNumberField("median_abs_error_pct", f.medianPercent());
    g.writeNumberField("p90_abs_error_pct", f.p90Percent());
    g.writeEndObject();
  }

  /** {@code 5_000_000} → {@code "5"}, {@code 80_000} → {@code "0.08"}. */
  private static String millis(long nanos) {
    return java.math.BigDecimal.valueOf(nanos, 6).stripTrailingZeros().toPlainString();
  }

  /**
   * The same as one JSON object: {@code models}, {@code gpus}, {@code engine_defaults}, {@code
   * engine_profiles}, {@code platforms} and {@code accuracy} (the held-out errors, over all sources
   * and by source).
   */
  public static String json(EngineConfig defaults) throws IOException {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeArrayFieldStart("models");
      for (ModelSpec m : Presets.models()) {
        SpecFiles.write(g, m);
      }
      g.writeEndArray();
      g.writeArrayFieldStart("gpus");
      for (GpuSpec s : Presets.gpus()) {
        SpecFiles.write(g, s);
      }
      g.writeEndArray();
      EngineConfig e = defaults;
      g.writeObjectFieldStart("engine_defaults");
      g.writeNumberField("mfu", e.mfu());
      g.writeNumberField("mbu", e.mbu());
      g.writeNumberField("iteration_overhead_ms", e.iterationOverheadNanos() / 1e6);
      g.writeNumberField("per_sequence_overhead_ms", e.perSequenceOverheadNanos() / 1e6);
      g.writeNumberField("gpu_memory_utilization", e.gpuMemoryUtilization());
      g.writeNumberField("reserve_bytes_per_gpu", e.reserveBytesPerGpu());
      g.writeNumberField("max_num_seqs", e.maxNumSeqs());
      g.writeNumberField("max_num_batched_tokens", e.maxBatchedTokens());
      g.writeNumberField("block_tokens", e.blockTokens());
      g.writeNumberField("all_reduce_latency_ms", e.allReduceLatencyNanos() / 1e6);
      g.writeEndObject();
      g.writeArrayFieldStart("engine_profiles");
      for (EngineProfile p : EngineProfile.all()) {
        g.writeStartObject();
        g.writeStringField("id", p.id());
        g.writeStringField("name", p.name());
        g.writeStringField("scheduling", p.scheduling().name().toLowerCase(Locale.ROOT));
        g.writeStringField("admission", p.admission().name().toLowerCase(Locale.ROOT));
        g.writeNumberField("max_num_seqs", p.maxNumSeqs());
        g.writeNumberField("max_num_batched_tokens", p.maxBatchedTokens());
        g.writeNumberField("small_gpu_max_num_seqs", p.smallGpuMaxNumSeqs());
        g.writeNumberField("small_gpu_max_num_batched_tokens", p.smallGpuMaxBatchedTokens());
        g.writeNumberField("cuda_graph_max_batch", p.graphMaxBatch());
        g.writeBooleanField("cuda_graphs_cover_prefill", p.graphCoversPrefill());
        g.writeNumberField("block_tokens", p.blockTokens());
        g.writeNumberField("kv_memory_share", p.kvMemoryShare());
        g.writeBooleanField("prefix_caching", p.prefixCaching());
        g.writeNumberField("iteration_overhead_ms", p.iterationOverheadNanos() / 1e6);
        g.writeNumberField("per_sequence_overhead_ms", p.perSequenceNanos() / 1e6);
        g.writeStringField("source", p.source());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("platforms");
      for (Platform p : Platform.values()) {
        g.writeStartObject();
        g.writeStringField("id", p.id());
        g.writeNumberField("iteration_overhead_ms", p.iterationExtraNanos() / 1e6);
        g.writeNumberField("per_sequence_overhead_ms", p.perSequenceExtraNanos() / 1e6);
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeObjectFieldStart("accuracy");
      g.writeArrayFieldStart("all_sources");
      for (HeldOutAccuracy.Quantity q : HeldOutAccuracy.Quantity.values()) {
        figure(g, q, HeldOutAccuracy.POOLED.get(q));
      }
      g.writeEndArray();
      g.writeArrayFieldStart("sources");
      for (HeldOutAccuracy.Source src : HeldOutAccuracy.SOURCES) {
        g.writeStartObject();
        g.writeStringField("source", src.key());
        g.writeStringField("profile", src.profile());
        g.writeStringField("platform", src.platform().id());
        g.writeArrayFieldStart("figures");
        for (HeldOutAccuracy.Quantity q : HeldOutAccuracy.Quantity.values()) {
          HeldOutAccuracy.Figure f = src.figures().get(q);
          if (f != null) {
            figure(g, q, f);
          }
        }
        g.writeEndArray();
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("unseen_models");
      for (HeldOutAccuracy.Unseen u : HeldOutAccuracy.UNSEEN) {
        g.writeStartObject();
        g.writeStringField("model", u.model());
        g.writeStringField("profile", u.profile());
        g.writeArrayFieldStart("figures");
        for (HeldOutAccuracy.Quantity q : HeldOutAccuracy.Quantity.values()) {
          HeldOutAccuracy.UnseenFigure f = u.figures().get(q);
          if (f != null) {
            g.writeStartObject();
            g.writeStringField("quantity", q.jsonName());
            g.writeNumberField("figures", f.figures());
            g.writeNumberField("median_abs_error_pct", f.medianPercent());
            g.writeNumberField("p90_abs_error_pct", f.p90Percent());
            g.writeNumberField("median_signed_error_pct", f.medianSignedPercent());
            g.writeEndObject();
          }
        }
        g.writeEndArray();
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeEndObject();
    }
    return w + System.lineSeparator();
  }
}
