package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.core.analysis.Repeats;
import java.io.IOException;

/** Writes {@code summary.json}'s {@code repeats} object; see {@code docs/summary.schema.json}. */
final class RepeatsJsonWriter {
  private RepeatsJsonWriter() {}

  static void write(JsonGenerator g, Repeats r) throws IOException {
    g.writeObjectFieldStart("repeats");
    g.writeNumberField("count", r.count());
    g.writeNumberField("confidence", r.confidence());
    g.writeBooleanField("vary_seed", r.varySeed());
    g.writeArrayFieldStart("groups");
    for (Repeats.Group group : r.groups()) {
      g.writeStartObject();
      g.writeNumberField("group", group.group());
      g.writeStringField("label", group.label());
      g.writeArrayFieldStart("stages");
      for (int index : group.stages()) {
        g.writeNumber(index);
      }
      g.writeEndArray();
      g.writeObjectFieldStart("metrics");
      for (Repeats.Headline h : Repeats.Headline.values()) {
        Repeats.Estimate e = group.estimate(h);
        g.writeObjectFieldStart(h.wireName());
        g.writeNumberField("n", e.n());
        StageJsonWriter.number(g, "mean", e.mean());
        StageJsonWriter.number(g, "std_dev", e.stdDev());
        StageJsonWriter.number(g, "cv", e.cv());
        StageJsonWriter.number(g, "half_width", e.halfWidth());
        StageJsonWriter.number(g, "ci_low", e.low());
        StageJsonWriter.number(g, "ci_high", e.high());
        g.writeEndObject();
      }
      g.writeEndObject();
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
  }
}
