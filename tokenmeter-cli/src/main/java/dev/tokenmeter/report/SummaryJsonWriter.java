package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeFormatter;

/**
 * Writes {@code summary.json}: a pure function of a {@link RunSummary}. The layout is {@code
 * docs/summary.schema.json} (version {@link RunSummary#SCHEMA_VERSION}); field names are stable,
 * scripts rely on them. Units are in field names ({@code _ms}, {@code _s}, {@code _per_s}); a value
 * that does not exist (the p50 of no requests, a rate over an empty window) is {@code null}.
 * Objects are indented, arrays kept on one line. Stateless and thread-safe.
 */
public final class SummaryJsonWriter {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFactory FACTORY = MAPPER.getFactory();

  private SummaryJsonWriter() {}

  /** Writes {@code summary} to {@code file}, replacing it. */
  public static void write(RunSummary summary, Path file) throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      write(summary, out);
    }
  }

  /** Writes {@code summary} to {@code out} as UTF-8, leaving {@code out} open. */
  public static void write(RunSummary summary, OutputStream out) throws IOException {
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      g.setPrettyPrinter(printer());
      run(g, summary);
      g.writeRaw('\n');
    }
  }

  /**
   * Writes a summary built as a JSON tree (a merged one, {@link SummaryMerger}) to {@code file} in
   * the same layout, replacing it.
   */
  public static void write(JsonNode summary, Path file) throws IOException {
    try (OutputStream out = Files.newOutputStream(file);
        JsonGenerator g = FACTORY.createGenerator(out)) {
      g.setPrettyPrinter(printer());
      MAPPER.writeTree(g, summary);
      g.writeRaw('\n');
    }
  }

  /** Objects indented, arrays on one line. */
  private static DefaultPrettyPrinter printer() {
    return new DefaultPrettyPrinter()
        .withSeparators(
            Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER))
        .withArrayIndenter(DefaultPrettyPrinter.FixedSpaceIndenter.instance);
  }

  /** The JSON text of {@code summary}. */
  public static String toJson(RunSummary summary) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      write(summary, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static void run(JsonGenerator g, RunSummary s) throws IOException {
    g.writeStartObject();
    g.writeStringField("schema_version", RunSummary.SCHEMA_VERSION);
    g.writeObjectFieldStart("tool");
    g.writeStringField("name", s.tool().name());
    g.writeStringField("version", s.tool().version());
    g.writeEndObject();
    g.writeStringField("started_at", DateTimeFormatter.ISO_INSTANT.format(s.startedAt()));
    g.writeStringField("ended_at", DateTimeFormatter.ISO_INSTANT.format(s.endedAt()));
    g.writeObjectFieldStart("target");
    g.writeStringField("url", s.target().url());
    g.writeStringField("api", s.target().api());
    g.writeStringField("model", s.target().model());
    g.writeEndObject();
    g.writeArrayFieldStart("command_line");
    for (String arg : s.commandLine()) {
      g.writeString(arg);
    }
    g.writeEndArray();
    g.writeNumberField("seed", s.seed());
    settings(g, s.settings());
    g.writeBooleanField("partial", s.completion().partial());
    g.writeStringField(
        "partial_reason",
        s.completion().reason() == null ? null : s.completion().reason().wireName());
    g.writeStringField("partial_detail", s.completion().detail());
    g.writeArrayFieldStart("stages");
    for (int i = 0; i < s.stages().size(); i++) {
      StageJsonWriter.write(g, s.stages().get(i), s.pricing() == null ? null : s.pricing().stages().get(i),
          s.server() == null ? null : s.server().get(i), s.gpu() == null ? null : s.gpu().get(i));
    }
    g.writeEndArray();
    if (s.pricing() != null) {
      CostJsonWriter.pricing(g, s.pricing().model());
    }
    if (s.repeats() != null) {
      RepeatsJsonWriter.write(g, s.repeats());
    }
    AnalysisJsonWriter.write(g, s.analysis());
    g.writeEndObject();
  }

  private static void settings(JsonGenerator g, RunSummary.Settings settings) throws IOException {
    g.writeObjectFieldStart("settings");
    g.writeObjectFieldStart("timeouts");
    millis(g, "first_token_ms", settings.timeouts().firstToken());
    millis(g, "idle_ms", settings.timeouts().idle());
    millis(g, "total_ms", settings.timeouts().total());
    g.writeEndObject();
    g.writeFieldName("workload");
    MAPPER.writeValue(g, settings.workload());
    simulation(g, settings.simulation());
    g.writeEndObject();
  }

  private static void disaggregation(JsonGenerator g, RunSummary.Disaggregation d) throws IOException {
    if (d == null) {
      return; // one engine: the field is absent
    }
    g.writeObjectFieldStart("disaggregation");
    g.writeNumberField("prefill_gpus", d.prefillGpus());
    g.writeNumberField("decode_gpus", d.decodeGpus());
    g.writeStringField("kv_transfer_link", d.kvTransferLink());
    g.writeNumberField("kv_transfer_gbps", d.kvTransferGbps());
    g.writeNumberField("kv_transfer_bytes_per_token", d.kvTransferBytesPerToken());
    g.writeNumberField("prefill_kv_cache_tokens", d.prefillKvCacheTokens());
    g.writeNumberField("decode_kv_cache_tokens", d.decodeKvCacheTokens());
    g.writeArrayFieldStart("stages");
    for (RunSummary.PoolStage p : d.stages()) {
      g.writeStartObject();
      g.writeNumberField("stage", p.stage());
      g.writeObjectFieldStart("prefill");
      g.writeNumberField("utilization", p.prefillUtilization());
      g.writeNumberField("kv_usage_mean", p.prefillKvUsageMean());
      g.writeNumberField("kv_usage_peak", p.prefillKvUsagePeak());
      g.writeNumberField("queue_max", p.prefillQueueMax());
      g.writeEndObject();
      g.writeObjectFieldStart("handoff");
      g.writeNumberField("requests", p.handoffs());
      g.writeNumberField("wait_mean_ms", p.handoffWaitMeanMs());
      g.writeNumberField("queue_max", p.handoffQueueMax());
      g.writeNumberField("transfer_mean_ms", p.transferMeanMs());
      g.writeEndObject();
      g.writeObjectFieldStart("decode");
      g.writeNumberField("utilization", p.decodeUtilization());
      g.writeNumberField("kv_usage_mean", p.decodeKvUsageMean());
      g.writeNumberField("kv_usage_peak", p.decodeKvUsagePeak());
      g.writeEndObject();
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  private static void simulation(JsonGenerator g, RunSummary.Simulation sim) throws IOException {
    if (sim == null) {
      g.writeNullField("simulation");
      return;
    }
    g.writeObjectFieldStart("simulation");
    g.writeStringField("note", sim.note());
    g.writeStringField("model", sim.model());
    g.writeStringField("gpu", sim.gpu());
    g.writeNumberField("gpus", sim.gpus());
    g.writeNumberField("dp_attention", sim.dpAttention());
    g.writeNumberField("expert_parallel", sim.expertParallel());
    g.writeStringField("weights_precision", sim.weightsPrecision());
    g.writeStringField("kv_cache_precision", sim.kvCachePrecision());
    g.writeNumberField("kv_cache_tokens", sim.kvCacheTokens());
    g.writeNumberField("max_model_len", sim.maxModelLen());
    g.writeNumberField("max_num_seqs", sim.maxNumSeqs());
    g.writeNumberField("max_batched_tokens", sim.maxBatchedTokens());
    g.writeNumberField("mfu", sim.mfu());
    g.writeNumberField("achievable_matmul_share", sim.achievableMatmulShare());
    g.writeNumberField("mbu", sim.mbu());
    g.writeNumberField("iteration_overhead_ms", sim.iterationOverheadMs());
    g.writeNumberField("per_sequence_overhead_ms", sim.perSequenceOverheadMs());
    g.writeNumberField("iterations", sim.iterations());
    g.writeNumberField("preemptions", sim.preemptions());
    g.writeBooleanField("prefix_caching", sim.prefixCaching());
    g.writeNumberField("prefix_cache_hit_rate", sim.prefixCacheHitRate());
    g.writeNumberField("simulated_s", sim.simulatedSeconds());
    g.writeNumberField("wall_s", sim.wallSeconds());
    disaggregation(g, sim.disaggregation());
    RunSummary.SimulatedEngine e = sim.engine();
    if (e != null) {
      g.writeObjectFieldStart("engine");
      g.writeStringField("profile", e.profile());
      g.writeStringField("name", e.name());
      g.writeStringField("calibration", e.calibration());
      g.writeStringField("fitted_on", e.fittedOn());
      g.writeNumberField("iteration_cv", e.iterationCv());
      g.writeNumberField("arrival_jitter_ms", e.arrivalJitterMs());
      g.writeArrayFieldStart("accuracy");
      for (RunSummary.AccuracyFigure a : e.accuracy()) {
        g.writeStartObject();
        g.writeStringField("scope", a.scope());
        g.writeStringField("quantity", a.quantity());
        g.writeNumberField("figures", a.figures());
        g.writeNumberField("median_abs_error_pct", a.medianAbsErrorPercent());
        g.writeNumberField("p90_abs_error_pct", a.p90AbsErrorPercent());
        if (a.medianSignedErrorPercent() != null) {
          g.writeNumberField("median_signed_error_pct", a.medianSignedErrorPercent());
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    g.writeEndObject();
  }

  private static void millis(JsonGenerator g, String name, Duration d) throws IOException {
    if (d == null) {
      g.writeNullField(name);
    } else {
      g.writeNumberField(name, d.toNanos() / 1e6);
    }
  }
}
