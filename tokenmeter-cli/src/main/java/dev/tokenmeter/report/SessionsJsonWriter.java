package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Sessions;
import java.io.IOException;

/**
 * Writes a stage's {@code sessions} object ({@code bench --turns}); see {@code
 * docs/summary.schema.json} and docs/METRICS.md, "Sessions".
 */
final class SessionsJsonWriter {
  private static final double NS_PER_S = 1e9;
  private static final double NS_PER_MS = 1e6;

  private SessionsJsonWriter() {}

  static void write(JsonGenerator g, Sessions s) throws IOException {
    g.writeObjectFieldStart("sessions");
    g.writeNumberField("started", s.started());
    g.writeNumberField("finished", s.finished());
    g.writeNumberField("ended_by_error", s.endedByError());
    g.writeNumberField("ended_by_max_context", s.endedByMaxContext());
    g.writeNumberField("in_progress_at_end", s.inProgressAtEnd());
    StageJsonWriter.distribution(g, "duration_s", Distribution.of(s.duration(), NS_PER_S));
    StageJsonWriter.distribution(g, "turns", Distribution.of(s.turns(), 1));
    StageJsonWriter.distribution(g, "input_tokens", Distribution.of(s.inputTokens(), 1));
    StageJsonWriter.distribution(g, "output_tokens", Distribution.of(s.outputTokens(), 1));
    g.writeArrayFieldStart("by_turn");
    for (Sessions.ByTurn t : s.byTurn()) {
      g.writeStartObject();
      g.writeStringField("turn", t.label());
      g.writeNumberField("requests", t.promptTokens().getTotalCount());
      StageJsonWriter.distribution(g, "ttft_ms", Distribution.of(t.ttft(), NS_PER_MS));
      StageJsonWriter.distribution(g, "tpot_ms", Distribution.of(t.tpot(), NS_PER_MS));
      StageJsonWriter.distribution(g, "prompt_tokens", Distribution.of(t.promptTokens(), 1));
      StageJsonWriter.number(g, "cached_share", t.cachedShare());
      g.writeNumberField("prompt_tokens_reporting_cache", t.promptTokensReportingCache());
      g.writeNumberField("cached_tokens", t.cachedTokens());
      g.writeObjectFieldStart("histograms");
      histogram(g, "ttft", "ns", t.ttft());
      histogram(g, "ttft_from_scheduled", "ns", t.ttftFromScheduled());
      histogram(g, "tpot", "ns", t.tpot());
      histogram(g, "prompt_tokens", "tokens", t.promptTokens());
      g.writeEndObject();
      g.writeEndObject();
    }
    g.writeEndArray();
    if (s.agent() != null) {
      agent(g, s);
    }
    g.writeStringField("in_words", SessionWords.of(s));
    g.writeObjectFieldStart("histograms");
    histogram(g, "duration", "ns", s.duration());
    histogram(g, "turns", "turns", s.turns());
    histogram(g, "input_tokens", "tokens", s.inputTokens());
    histogram(g, "output_tokens", "tokens", s.outputTokens());
    g.writeEndObject();
    g.writeEndObject();
  }

  /**
   * One raw histogram in the form of {@code stages[].histograms}' entries, so merged folders
   * ({@code tokenmeter merge}, {@code bench --workers}) add the parts' sessions exactly.
   */
  static void histogram(JsonGenerator g, String field, String unit, org.HdrHistogram.Histogram h) throws IOException {
    g.writeObjectFieldStart(field);
    g.writeStringField("unit", unit);
    g.writeStringField("encoding", HistogramCodec.ENCODING);
    g.writeNumberField("count", h.getTotalCount());
    g.writeStringField("data", HistogramCodec.encode(h));
    g.writeEndObject();
  }

  /**
   * The {@code agent} object: tool steps, answers that called tools and the calls in them, tool results, the share of steps answered
   * with a tool call, and how TTFT p50 grew with the context from the first turn to the last
   * bucket (ms per 1,000 prompt tokens; NaN with one bucket or no growth).
   */
  private static void agent(JsonGenerator g, Sessions s) throws IOException {
    Sessions.Agent a = s.agent();
    g.writeObjectFieldStart("agent");
    g.writeNumberField("steps", a.steps());
    g.writeNumberField("tool_calls", a.toolCalls());
    g.writeNumberField("calls", a.calls());
    g.writeNumberField("tool_results", a.toolResults());
    StageJsonWriter.number(g, "tool_call_share", a.toolCallShare());
    StageJsonWriter.number(g, "ttft_p50_growth_ms_per_1k_tokens", ttftGrowth(s));
    g.writeEndObject();
  }

  /** (TTFT p50 of the last bucket − of turn 1) / (their mean prompts' difference) × 1000, ms. */
  static double ttftGrowth(Sessions s) {
    Sessions.ByTurn first = null;
    Sessions.ByTurn last = null;
    for (Sessions.ByTurn t : s.byTurn()) {
      if (t.ttft().getTotalCount() == 0 || t.promptTokens().getTotalCount() == 0) {
        continue;
      }
      if (first == null) {
        first = t;
      }
      last = t;
    }
    if (first == null || first == last) {
      return Double.NaN;
    }
    double tokens = last.promptTokens().getMean() - first.promptTokens().getMean();
    if (tokens <= 0) {
      return Double.NaN;
    }
    double ms = (last.ttft().getValueAtPercentile(50) - first.ttft().getValueAtPercentile(50)) / NS_PER_MS;
    return ms / tokens * 1000;
  }
}
