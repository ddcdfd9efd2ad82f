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
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeStringField("in_words", SessionWords.of(s));
    g.writeEndObject();
  }
}
