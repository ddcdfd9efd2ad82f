package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A stage's {@code completion} object read back from summary.json, for the report's "Code
 * completion" section; see docs/METRICS.md, "Code completion". Missing numbers are NaN. Immutable.
 *
 * @param sent measured completion requests issued
 * @param completed those whose answer ended normally
 * @param superseded those cancelled by the same user's next keystroke
 * @param cancelledAfter those cancelled by {@code --cancel-after}
 * @param failed those that failed
 * @param cutAtStageEnd those cut by the stage's end
 * @param cancelledShare (superseded + cancelled after) / sent, NaN when none was sent
 * @param ttftP50Millis TTFT p50 of the completed ones, ms
 * @param ttftP99Millis TTFT p99 of the completed ones, ms
 * @param serverStopsOnCancel {@code stopped}, {@code kept_generating} or {@code not_known}
 * @param inWords the sentence
 */
public record SavedCompletion(
    long sent,
    long completed,
    long superseded,
    long cancelledAfter,
    long failed,
    long cutAtStageEnd,
    double cancelledShare,
    double ttftP50Millis,
    double ttftP99Millis,
    String serverStopsOnCancel,
    String inWords) {

  /** The {@code completion} object of stage {@code s}, or null when it has none. */
  static SavedCompletion read(JsonNode s) {
    JsonNode n = s.get("completion");
    if (n == null || !n.isObject()) {
      return null;
    }
    JsonNode ttft = n.path("ttft_completed_ms");
    return new SavedCompletion(n.path("requests_sent").asLong(), n.path("completed").asLong(),
        n.path("superseded").asLong(), n.path("cancelled_after").asLong(), n.path("failed").asLong(),
        n.path("cut_at_stage_end").asLong(), StageDetailReader.number(n.path("cancelled_share")),
        StageDetailReader.number(ttft.path("p50")), StageDetailReader.number(ttft.path("p99")),
        n.path("server_stops_on_cancel").asText("not_known"), n.path("in_words").asText(""));
  }
}
