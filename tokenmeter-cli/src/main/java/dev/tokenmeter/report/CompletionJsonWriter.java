package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.core.analysis.Completions;
import dev.tokenmeter.core.analysis.Distribution;
import java.io.IOException;

/**
 * Writes a stage's {@code completion} object ({@code --profile completion}); see {@code
 * docs/summary.schema.json} and docs/METRICS.md, "Code completion".
 */
final class CompletionJsonWriter {
  private static final double NS_PER_MS = 1e6;

  private CompletionJsonWriter() {}

  static void write(JsonGenerator g, Completions c) throws IOException {
    g.writeObjectFieldStart("completion");
    g.writeNumberField("requests_sent", c.sent());
    g.writeNumberField("completed", c.completed());
    g.writeNumberField("superseded", c.superseded());
    g.writeNumberField("cancelled_after", c.cancelledAfter());
    g.writeNumberField("failed", c.failed());
    g.writeNumberField("cut_at_stage_end", c.cutAtStageEnd());
    StageJsonWriter.number(g, "cancelled_share", c.cancelledShare());
    StageJsonWriter.distribution(g, "ttft_completed_ms", Distribution.of(c.ttft(), NS_PER_MS));
    g.writeStringField("server_stops_on_cancel", c.serverStop().wireName());
    g.writeStringField("in_words", c.inWords());
    g.writeObjectFieldStart("histograms");
    SessionsJsonWriter.histogram(g, "ttft", "ns", c.ttft());
    g.writeEndObject();
    g.writeEndObject();
  }
}
