package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.core.analysis.Cost;
import java.io.IOException;

/** Writes {@code summary.json}'s {@code pricing} and {@code stages[].cost}; see the schema. */
final class CostJsonWriter {
  private CostJsonWriter() {}

  static void pricing(JsonGenerator g, Cost.Model m) throws IOException {
    g.writeObjectFieldStart("pricing");
    g.writeStringField("currency", m.currency());
    StageJsonWriter.number(g, "price_in_per_1m_tokens", m.priceInPerMillion());
    StageJsonWriter.number(g, "price_out_per_1m_tokens", m.priceOutPerMillion());
    StageJsonWriter.number(g, "gpu_cost_per_hour", m.gpuCostPerHour());
    g.writeNumberField("gpus", m.gpus());
    StageJsonWriter.number(g, "traffic_requests_per_day", m.trafficRequestsPerDay());
    g.writeNumberField("turns_per_conversation", m.turnsPerConversation());
    g.writeNumberField("days_per_month", Cost.DAYS_PER_MONTH);
    g.writeEndObject();
  }

  static void stage(JsonGenerator g, Cost.StageCost c) throws IOException {
    g.writeObjectFieldStart("cost");
    figures(g, "tokens", c.tokens());
    figures(g, "gpu", c.gpu());
    g.writeEndObject();
  }

  private static void figures(JsonGenerator g, String name, Cost.Figures f) throws IOException {
    if (f == null) {
      g.writeNullField(name);
      return;
    }
    g.writeObjectFieldStart(name);
    StageJsonWriter.number(g, "per_request", f.perRequest());
    StageJsonWriter.number(g, "per_1m_output_tokens", f.perMillionOutputTokens());
    StageJsonWriter.number(g, "per_conversation", f.perConversation());
    StageJsonWriter.number(g, "per_month", f.perMonth());
    g.writeNumberField("deployments", f.deployments());
    g.writeEndObject();
  }
}
