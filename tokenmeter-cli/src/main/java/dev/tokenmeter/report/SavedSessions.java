package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A stage's {@code sessions} object read back from summary.json, for the report's "Conversations"
 * section; see docs/METRICS.md, "Sessions". Missing numbers are NaN. Immutable.
 *
 * @param started sessions started
 * @param finished sessions that answered every planned turn
 * @param endedByError sessions ended by a failed turn
 * @param endedByMaxContext sessions ended at {@code --max-context}
 * @param inProgressAtEnd sessions cut by the stage's end
 * @param durationP50Seconds median session duration, s
 * @param meanTurns mean turns per session that ended
 * @param meanInputTokens mean prompt tokens per session that ended, summed over its turns
 * @param meanOutputTokens mean output tokens per session that ended
 * @param byTurn the by-turn rows, in turn order
 * @param inWords the sentence
 */
public record SavedSessions(
    long started,
    long finished,
    long endedByError,
    long endedByMaxContext,
    long inProgressAtEnd,
    double durationP50Seconds,
    double meanTurns,
    double meanInputTokens,
    double meanOutputTokens,
    List<Turn> byTurn,
    String inWords) {

  public SavedSessions {
    byTurn = List.copyOf(byTurn);
  }

  /** One by-turn row: {@code turn} is {@code "1"}..{@code "8"} or {@code "later"}. */
  public record Turn(String turn, long requests, double ttftP50Millis, double ttftP99Millis, double tpotP50Millis,
      double meanPromptTokens, double cachedShare) {}

  /** The {@code sessions} object of stage {@code s}, or null when it has none. */
  static SavedSessions read(JsonNode s) {
    JsonNode n = s.get("sessions");
    if (n == null || !n.isObject()) {
      return null;
    }
    List<Turn> turns = new ArrayList<>();
    for (JsonNode t : n.path("by_turn")) {
      turns.add(new Turn(t.path("turn").asText(), t.path("requests").asLong(),
          StageDetailReader.number(t.path("ttft_ms").path("p50")), StageDetailReader.number(t.path("ttft_ms").path("p99")),
          StageDetailReader.number(t.path("tpot_ms").path("p50")),
          StageDetailReader.number(t.path("prompt_tokens").path("mean")), StageDetailReader.number(t.path("cached_share"))));
    }
    return new SavedSessions(n.path("started").asLong(), n.path("finished").asLong(), n.path("ended_by_error").asLong(),
        n.path("ended_by_max_context").asLong(), n.path("in_progress_at_end").asLong(),
        StageDetailReader.number(n.path("duration_s").path("p50")), StageDetailReader.number(n.path("turns").path("mean")),
        StageDetailReader.number(n.path("input_tokens").path("mean")),
        StageDetailReader.number(n.path("output_tokens").path("mean")), turns, n.path("in_words").asText(""));
  }
}
