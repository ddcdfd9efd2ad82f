package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.core.analysis.Completions;
import dev.tokenmeter.core.analysis.Sessions;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Reads a stage's {@code sessions} and {@code completion} objects back into {@link Sessions} and
 * {@link Completions}, from the raw histograms {@link SessionsJsonWriter} and {@link
 * CompletionJsonWriter} write beside the distributions (schema 1.11), for merging folders.
 * Stateless.
 */
final class SessionsJsonReader {
  private SessionsJsonReader() {}

  /** The sessions of {@code o}, or null when it has no raw histograms (written before schema 1.11). */
  static Sessions sessions(JsonNode o) {
    JsonNode h = o.get("histograms");
    if (h == null || !h.isObject()) {
      return null;
    }
    List<Sessions.ByTurn> byTurn = new ArrayList<>();
    for (JsonNode t : o.get("by_turn")) {
      JsonNode th = t.get("histograms");
      if (th == null || !th.isObject()) {
        return null;
      }
      String label = t.get("turn").asText();
      int turn = "later".equals(label) ? Sessions.TURN_CAP + 1 : Integer.parseInt(label);
      byTurn.add(new Sessions.ByTurn(turn, histogram(th, "ttft"), histogram(th, "ttft_from_scheduled"),
          histogram(th, "tpot"), histogram(th, "prompt_tokens"), t.get("prompt_tokens_reporting_cache").asLong(),
          t.get("cached_tokens").asLong()));
    }
    JsonNode a = o.get("agent");
    Sessions.Agent agent = a == null || a.isNull() ? null
        : new Sessions.Agent(a.get("steps").asLong(), a.get("tool_calls").asLong(), a.get("tool_results").asLong(),
            // calls came in schema 1.13; before, every answer was counted as one call
            a.has("calls") ? a.get("calls").asLong() : a.get("tool_calls").asLong());
    return new Sessions(o.get("started").asLong(), o.get("finished").asLong(), o.get("ended_by_error").asLong(),
        o.get("ended_by_max_context").asLong(), o.get("in_progress_at_end").asLong(), histogram(h, "duration"),
        histogram(h, "turns"), histogram(h, "input_tokens"), histogram(h, "output_tokens"), byTurn, agent);
  }

  /** The completion tally of {@code o}, or null when it has no raw histograms (written before schema 1.11). */
  static Completions completion(JsonNode o) {
    JsonNode h = o.get("histograms");
    if (h == null || !h.isObject()) {
      return null;
    }
    return new Completions(o.get("requests_sent").asLong(), o.get("completed").asLong(), o.get("superseded").asLong(),
        o.get("cancelled_after").asLong(), o.get("failed").asLong(), o.get("cut_at_stage_end").asLong(),
        histogram(h, "ttft"), Completions.ServerStop.ofWireName(o.get("server_stops_on_cancel").asText()));
  }

  private static Histogram histogram(JsonNode parent, String field) {
    return HistogramCodec.decode(parent.get(field).get("data").asText());
  }
}
