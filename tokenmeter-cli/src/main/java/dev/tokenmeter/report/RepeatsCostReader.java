package dev.tokenmeter.report;

import static dev.tokenmeter.report.StageDetailReader.number;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.Repeats;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code summary.json}'s {@code repeats}, {@code pricing} and {@code stages[].cost} (schema
 * 1.2, written by {@link RepeatsJsonWriter} and {@link CostJsonWriter}) back into the types that
 * computed them. Lenient like {@link StageDetailReader}: an absent section is null, an absent
 * number NaN. Stateless.
 */
final class RepeatsCostReader {
  private RepeatsCostReader() {}

  /** The top-level {@code repeats}, or null when the run had no {@code --repeat}. */
  static Repeats repeats(JsonNode root) {
    JsonNode r = root.path("repeats");
    if (!r.isObject()) {
      return null;
    }
    List<Repeats.Group> groups = new ArrayList<>();
    for (JsonNode g : r.path("groups")) {
      List<Integer> stages = new ArrayList<>();
      g.path("stages").forEach(i -> stages.add(i.asInt()));
      Map<Repeats.Headline, Repeats.Estimate> estimates = new EnumMap<>(Repeats.Headline.class);
      for (Repeats.Headline h : Repeats.Headline.values()) {
        JsonNode e = g.path("metrics").path(h.wireName());
        estimates.put(h, new Repeats.Estimate(e.path("n").asInt(0), number(e.get("mean")),
            number(e.get("std_dev")), number(e.get("cv")), number(e.get("half_width"))));
      }
      groups.add(new Repeats.Group(g.path("group").asInt(), g.path("label").asText(""), stages, estimates));
    }
    double confidence = number(r.get("confidence"));
    return new Repeats(r.path("count").asInt(stages(groups)), confidence > 0 && confidence < 1 ? confidence : 0.95,
        r.path("vary_seed").asBoolean(false), groups);
  }

  private static int stages(List<Repeats.Group> groups) {
    return groups.isEmpty() ? 0 : groups.get(0).stages().size();
  }

  /** The top-level {@code pricing}, or null when no price was given. */
  static Cost.Model pricing(JsonNode root) {
    JsonNode p = root.path("pricing");
    if (!p.isObject()) {
      return null;
    }
    return new Cost.Model(p.path("currency").asText("USD"), number(p.get("price_in_per_1m_tokens")),
        number(p.get("price_out_per_1m_tokens")), number(p.get("gpu_cost_per_hour")),
        Math.max(1, p.path("gpus").asInt(1)), number(p.get("traffic_requests_per_day")),
        Math.max(1, p.path("turns_per_conversation").asInt(1)));
  }

  /** A stage's {@code cost}, or null when the run had no pricing. */
  static Cost.StageCost cost(JsonNode stage) {
    JsonNode c = stage.path("cost");
    return c.isObject() ? new Cost.StageCost(figures(c.path("tokens")), figures(c.path("gpu"))) : null;
  }

  private static Cost.Figures figures(JsonNode f) {
    if (!f.isObject()) {
      return null;
    }
    return new Cost.Figures(number(f.get("per_request")), number(f.get("per_1m_output_tokens")),
        number(f.get("per_conversation")), number(f.get("per_month")), f.path("deployments").asLong(0));
  }
}
