package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.core.analysis.ClientHealth;
import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.LatencyOrigin;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.analysis.SteadyState;
import dev.tokenmeter.core.analysis.TimeSeries;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.scrape.ServerStage;
import java.io.IOException;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Writes one element of {@code stages[]}; see {@code docs/summary.schema.json}. */
final class StageJsonWriter {
  private static final double NS_PER_S = 1e9;
  private static final double NS_PER_MS = 1e6;

  private StageJsonWriter() {}

  /** Writes stage {@code r}, with its {@code cost} and {@code server} metrics when not null. */
  static void write(JsonGenerator g, StageResult r, Cost.StageCost cost, ServerStage server) throws IOException {
    write(g, r, cost, server, null);
  }

  /** Writes stage {@code r}, with its {@code cost}, {@code server} and {@code gpu} figures when not null. */
  static void write(JsonGenerator g, StageResult r, Cost.StageCost cost, ServerStage server,
      dev.tokenmeter.scrape.GpuStage gpu) throws IOException {
    g.writeStartObject();
    plan(g, r.plan(), r.label());
    number(g, "stage_length_s", r.stageLengthNanos() / NS_PER_S);
    window(g, r.window());
    requests(g, r);
    throughput(g, r.throughput());
    number(g, "achieved_concurrency", r.throughput().achievedConcurrency());
    g.writeStringField("headline_latency_from", LatencyOrigin.headlineOf(r.plan().load()).wireName());
    g.writeObjectFieldStart("metrics");
    for (Metric m : Metric.values()) {
      if (m != Metric.SEND_LAG && m != Metric.LOOP_LAG) {
        distribution(g, m.reportKey(), r.metric(m));
      }
    }
    g.writeEndObject();
    g.writeObjectFieldStart("failed_metrics");
    for (Map.Entry<Metric, Distribution> e : r.failedMetrics().entrySet()) {
      distribution(g, e.getKey().reportKey(), e.getValue());
    }
    g.writeEndObject();
    tokens(g, r.tokens());
    finishes(g, r.finishes());
    steadyState(g, r.steadyState());
    clientHealth(g, r.clientHealth());
    timeSeries(g, r.timeSeries());
    histograms(g, "histograms", r.histograms());
    histograms(g, "failed_histograms", r.failedHistograms());
    if (r.sessions() != null) {
      SessionsJsonWriter.write(g, r.sessions());
    }
    if (r.completions() != null) {
      CompletionJsonWriter.write(g, r.completions());
    }
    if (cost != null) {
      CostJsonWriter.stage(g, cost);
    }
    if (server != null) {
      ServerStageJson.write(g, server);
    }
    if (gpu != null) {
      GpuStageJson.write(g, gpu);
    }
    g.writeEndObject();
  }

  /** The plan's fields of a stage object: index, label, load, stop, warm-up, cool-down, seed. */
  static void plan(JsonGenerator g, StagePlan plan, String label) throws IOException {
    g.writeNumberField("index", plan.index());
    g.writeStringField("label", label);
    g.writeObjectFieldStart("load");
    switch (plan.load()) {
      case LoadModel.Closed c -> {
        g.writeStringField("model", "closed");
        g.writeNumberField("concurrency", c.concurrency());
        number(g, "think_time_ms", c.thinkTimeNanos() / NS_PER_MS);
        g.writeNullField("rate_per_s");
        g.writeNullField("arrivals");
        g.writeNullField("burstiness");
        g.writeNullField("max_concurrency");
      }
      case LoadModel.Open o -> {
        g.writeStringField("model", "open");
        g.writeNullField("concurrency");
        g.writeNullField("think_time_ms");
        number(g, "rate_per_s", o.ratePerSecond());
        String arrivals =
            switch (o.arrivals()) {
              case Arrivals.Constant x -> "constant";
              case Arrivals.Poisson x -> "poisson";
              case Arrivals.Gamma x -> "gamma";
              case Arrivals.Trace x -> "trace";
            };
        g.writeStringField("arrivals", arrivals);
        number(g, "burstiness", o.arrivals() instanceof Arrivals.Gamma gamma
            ? gamma.burstiness() : Double.NaN);
        if (o.maxConcurrency().isPresent()) {
          g.writeNumberField("max_concurrency", o.maxConcurrency().getAsInt());
        } else {
          g.writeNullField("max_concurrency");
        }
      }
    }
    g.writeEndObject();
    g.writeObjectFieldStart("stop");
    switch (plan.stop()) {
      case StopCondition.Duration d -> {
        g.writeStringField("kind", "duration");
        number(g, "duration_s", d.nanos() / NS_PER_S);
        g.writeNullField("requests");
      }
      case StopCondition.Requests q -> {
        g.writeStringField("kind", "requests");
        g.writeNullField("duration_s");
        g.writeNumberField("requests", q.count());
      }
    }
    g.writeEndObject();
    number(g, "warmup_s", plan.warmupNanos() / NS_PER_S);
    number(g, "cooldown_s", plan.cooldownNanos() / NS_PER_S);
    g.writeNumberField("seed", plan.seed());
    if (plan.maxRequests() > 0) { // --max-requests: every phase counted
      g.writeNumberField("max_requests", plan.maxRequests());
    } else {
      g.writeNullField("max_requests");
    }
  }

  private static void window(JsonGenerator g, StageResult.Window w) throws IOException {
    g.writeObjectFieldStart("window");
    boolean started = w.startOffsetNanos() >= 0;
    number(g, "start_s", started ? w.startOffsetNanos() / NS_PER_S : Double.NaN);
    number(g, "end_s", started ? w.endOffsetNanos() / NS_PER_S : Double.NaN);
    number(g, "length_s", w.lengthNanos() / NS_PER_S);
    g.writeBooleanField("complete", w.complete());
    g.writeEndObject();
  }

  private static void requests(JsonGenerator g, StageResult r) throws IOException {
    g.writeObjectFieldStart("requests");
    g.writeNumberField("completed", r.requests().completed());
    g.writeNumberField("failed", r.requests().failed());
    g.writeNumberField("tpot_undefined", r.requests().tpotUndefined());
    g.writeObjectFieldStart("by_phase");
    for (Phase p : Phase.values()) {
      StageResult.PhaseCounts c = r.requests().byPhase().get(p);
      g.writeObjectFieldStart(p.wireName());
      g.writeNumberField("completed", c == null ? 0 : c.completed());
      g.writeNumberField("failed", c == null ? 0 : c.failed());
      g.writeEndObject();
    }
    g.writeEndObject();
    g.writeEndObject();
    g.writeObjectFieldStart("errors");
    for (Map.Entry<ErrorClass, Long> e : r.errors().entrySet()) {
      g.writeNumberField(e.getKey().wireName(), e.getValue());
    }
    g.writeEndObject();
  }

  private static void throughput(JsonGenerator g, StageResult.Throughput t) throws IOException {
    g.writeObjectFieldStart("throughput");
    number(g, "output_tokens_per_s", t.outputTokensPerSecond());
    number(g, "input_tokens_per_s", t.inputTokensPerSecond());
    number(g, "requests_per_s", t.requestsPerSecond());
    number(g, "goodput_requests_per_s", t.goodputRequestsPerSecond());
    g.writeNumberField("window_output_tokens", t.windowOutputTokens());
    g.writeNumberField("window_input_tokens", t.windowInputTokens());
    g.writeEndObject();
  }

  /** A distribution object: count, min, mean, p1 ... p999, max; NaN as null. */
  static void distribution(JsonGenerator g, String name, Distribution d) throws IOException {
    g.writeObjectFieldStart(name);
    g.writeNumberField("count", d.count());
    number(g, "min", d.min());
    number(g, "mean", d.mean());
    number(g, "p1", d.p1());
    number(g, "p5", d.p5());
    number(g, "p10", d.p10());
    number(g, "p50", d.p50());
    number(g, "p90", d.p90());
    number(g, "p95", d.p95());
    number(g, "p99", d.p99());
    number(g, "p999", d.p999());
    number(g, "max", d.max());
    g.writeEndObject();
  }

  private static void finishes(JsonGenerator g, StageResult.Finishes f) throws IOException {
    g.writeObjectFieldStart("finishes");
    g.writeObjectFieldStart("by_reason");
    for (dev.tokenmeter.core.request.FinishClass c : dev.tokenmeter.core.request.FinishClass.values()) {
      g.writeNumberField(c.wireName(), f.byClass().get(c));
    }
    g.writeEndObject();
    g.writeNumberField("with_max_tokens", f.withMaxTokens());
    g.writeNumberField("reached_max_tokens", f.reachedMaxTokens());
    g.writeEndObject();
  }

  private static void tokens(JsonGenerator g, StageResult.TokenAccounting t) throws IOException {
    g.writeObjectFieldStart("tokens");
    g.writeObjectFieldStart("output_sources");
    for (TokenCountSource s : TokenCountSource.values()) {
      g.writeNumberField(s.wireName(), t.outputSources().getOrDefault(s, 0L));
    }
    g.writeEndObject();
    g.writeNumberField("usage_chunk_disagreements", t.usageChunkDisagreements());
    StageResult.PromptOverhead p = t.promptOverhead();
    g.writeObjectFieldStart("prompt_overhead");
    g.writeNumberField("count", p.count());
    g.writeNumberField("estimated_count", p.estimatedCount());
    number(g, "mean_tokens", p.meanTokens());
    nullableCount(g, "min_tokens", p.count() > 0, p.minTokens());
    nullableCount(g, "max_tokens", p.count() > 0, p.maxTokens());
    number(g, "mean_client_tokens", p.meanClientTokens());
    g.writeBooleanField("counts_differ", p.countsDiffer());
    g.writeEndObject();
    StageResult.UsageVsTokenizer u = t.usageVsTokenizer();
    g.writeObjectFieldStart("usage_vs_tokenizer");
    g.writeStringField("tokenizer", u.tokenizer());
    g.writeNumberField("compared", u.compared());
    g.writeNumberField("disagreements", u.disagreements());
    number(g, "mean_diff_tokens", u.meanDiffTokens());
    number(g, "mean_abs_diff_tokens", u.meanAbsDiffTokens());
    nullableCount(g, "max_abs_diff_tokens", u.disagreements() > 0, u.maxAbsDiffTokens());
    number(g, "mean_rel_diff", u.meanRelDiff());
    number(g, "max_rel_diff", u.maxRelDiff());
    g.writeEndObject();
    g.writeNumberField("output_words", t.outputWords());
    number(g, "words_per_output_token", t.wordsPerOutputToken());
    g.writeEndObject();
  }

  private static void nullableCount(JsonGenerator g, String name, boolean present, long value)
      throws IOException {
    g.writeFieldName(name);
    if (present) {
      g.writeNumber(value);
    } else {
      g.writeNull();
    }
  }

  private static void steadyState(JsonGenerator g, SteadyState s) throws IOException {
    g.writeObjectFieldStart("steady_state");
    g.writeBooleanField("reached", s.reached());
    g.writeStringField("failed_check", s.failedCheck().wireName());
    g.writeStringField("reason", s.reason());
    g.writeNumberField("seconds", s.seconds());
    g.writeArrayFieldStart("third_output_tokens_per_s");
    for (double v : s.thirdOutputTokensPerSecond()) {
      number(g, v);
    }
    g.writeEndArray();
    g.writeArrayFieldStart("third_mean_ttft_ms");
    for (double v : s.thirdMeanTtftMillis()) {
      number(g, v);
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  private static void clientHealth(JsonGenerator g, ClientHealth h) throws IOException {
    g.writeObjectFieldStart("client_health");
    g.writeBooleanField("bottleneck", h.bottleneck());
    g.writeArrayFieldStart("reasons");
    for (String reason : h.reasons()) {
      g.writeString(reason);
    }
    g.writeEndArray();
    distribution(g, "send_lag_ms", h.sendLagMillis());
    distribution(g, "loop_lag_ms", h.loopLagMillis());
    number(g, "cpu_seconds", h.cpuSeconds());
    number(g, "cpu_fraction_of_one_core", h.cpuFractionOfOneCore());
    number(g, "cpu_fraction_of_all_cores", h.cpuFractionOfAllCores());
    number(g, "loop_thread_cpu_fraction", h.loopThreadCpuFraction());
    g.writeNumberField("available_processors", h.availableProcessors());
    g.writeNumberField("event_loops", h.eventLoops());
    number(g, "output_tokens_per_cpu_second", h.outputTokensPerCpuSecond());
    g.writeEndObject();
  }

  private static void timeSeries(JsonGenerator g, TimeSeries ts) throws IOException {
    g.writeObjectFieldStart("time_series");
    number(g, "interval_s", TimeSeries.INTERVAL_NANOS / NS_PER_S);
    number(g, "stage_length_s", ts.stageLengthNanos() / NS_PER_S);
    g.writeArrayFieldStart("phases");
    long start = ts.windowStartOffsetNanos();
    long end = ts.windowEndOffsetNanos();
    long length = ts.stageLengthNanos();
    if (start < 0) {
      phase(g, Phase.WARMUP, 0, length);
    } else {
      phase(g, Phase.WARMUP, 0, start);
      phase(g, Phase.MEASURED, start, end);
      phase(g, Phase.COOLDOWN, end, length);
    }
    g.writeEndArray();
    int n = ts.seconds();
    g.writeArrayFieldStart("output_tokens");
    for (int s = 0; s < n; s++) {
      g.writeNumber(ts.outputTokens(s));
    }
    g.writeEndArray();
    g.writeArrayFieldStart("completed");
    for (int s = 0; s < n; s++) {
      g.writeNumber(ts.completed(s));
    }
    g.writeEndArray();
    g.writeArrayFieldStart("failed");
    for (int s = 0; s < n; s++) {
      g.writeNumber(ts.failed(s));
    }
    g.writeEndArray();
    g.writeArrayFieldStart("mean_in_flight");
    for (int s = 0; s < n; s++) {
      number(g, ts.meanInFlight(s));
    }
    g.writeEndArray();
    g.writeArrayFieldStart("first_tokens");
    for (int s = 0; s < n; s++) {
      g.writeNumber(ts.firstTokens(s));
    }
    g.writeEndArray();
    g.writeArrayFieldStart("mean_ttft_ms");
    for (int s = 0; s < n; s++) {
      number(g, ts.meanTtftNanos(s) / NS_PER_MS);
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  private static void phase(JsonGenerator g, Phase p, long fromNanos, long toNanos)
      throws IOException {
    if (toNanos <= fromNanos) {
      return; // no warm-up, or a window that ran to the stage end
    }
    g.writeStartObject();
    g.writeStringField("phase", p.wireName());
    number(g, "start_s", fromNanos / NS_PER_S);
    number(g, "end_s", toNanos / NS_PER_S);
    g.writeEndObject();
  }

  /** The {@code histograms} (or {@code failed_histograms}) object: per metric its unit, encoding, count, data. */
  static void histograms(JsonGenerator g, String field, Map<Metric, Histogram> map)
      throws IOException {
    g.writeObjectFieldStart(field);
    for (Map.Entry<Metric, Histogram> e : map.entrySet()) {
      g.writeObjectFieldStart(e.getKey().wireName());
      g.writeStringField("unit", e.getKey().unit().wireName());
      g.writeStringField("encoding", HistogramCodec.ENCODING);
      g.writeNumberField("count", e.getValue().getTotalCount());
      g.writeStringField("data", HistogramCodec.encode(e.getValue()));
      g.writeEndObject();
    }
    g.writeEndObject();
  }

  /** Writes {@code value}, or null when it is NaN or infinite. */
  static void number(JsonGenerator g, String name, double value) throws IOException {
    g.writeFieldName(name);
    number(g, value);
  }

  static void number(JsonGenerator g, double value) throws IOException {
    if (Double.isFinite(value)) {
      g.writeNumber(value);
    } else {
      g.writeNull();
    }
  }
}
