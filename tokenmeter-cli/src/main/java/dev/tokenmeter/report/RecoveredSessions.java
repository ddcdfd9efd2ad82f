package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.Sessions;
import dev.tokenmeter.core.request.Phase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * A crashed stage's sessions rebuilt from its requests' lines ({@code report --recover}): the
 * by-turn figures exactly (successful measured requests, as a finished stage counts them), the
 * session counts as far as the lines tell. Stateless.
 *
 * <p>requests.jsonl names each request's session and turn but not how many turns a session
 * planned, so a session is {@code ended_by_error} when its last line failed and {@code
 * in_progress_at_end} otherwise (the process died while it ran, or it had just finished: not
 * told apart); none is counted as finished or ended by max context, and the per-session
 * distributions, which cover those, are empty.
 */
final class RecoveredSessions {
  private RecoveredSessions() {}

  /** The sessions of {@code lines} (one stage's), or null when no line names a session. */
  static Sessions of(List<SavedRequest> lines) {
    Map<Long, SavedRequest> last = new HashMap<>();
    Histogram[][] byTurn = new Histogram[Sessions.TURN_CAP + 1][];
    long[][] cache = new long[Sessions.TURN_CAP + 1][2];
    for (SavedRequest r : lines) {
      if (r.session() < 0) {
        continue;
      }
      last.merge(r.session(), r, (a, b) -> b.turn() >= a.turn() ? b : a);
      if (!r.ok() || r.phase() != Phase.MEASURED) {
        continue;
      }
      int b = Sessions.bucketOf(r.turn());
      if (byTurn[b] == null) {
        byTurn[b] = new Histogram[] {histogram(), histogram(), histogram(), histogram()};
      }
      record(byTurn[b][0], r.ttftNanos());
      record(byTurn[b][1], r.ttftFromScheduledNanos());
      if (Double.isFinite(r.tpotNanos())) {
        record(byTurn[b][2], Math.round(r.tpotNanos()));
      }
      record(byTurn[b][3], r.inputTokens());
      if (r.cachedTokens() >= 0 && r.inputTokens() >= 0) {
        cache[b][0] += r.inputTokens();
        cache[b][1] += r.cachedTokens();
      }
    }
    if (last.isEmpty()) {
      return null;
    }
    long byError = last.values().stream().filter(r -> !r.ok()).count();
    List<Sessions.ByTurn> turns = new ArrayList<>();
    for (int b = 0; b < byTurn.length; b++) {
      if (byTurn[b] != null) {
        turns.add(new Sessions.ByTurn(b + 1, byTurn[b][0], byTurn[b][1], byTurn[b][2], byTurn[b][3], cache[b][0],
            cache[b][1]));
      }
    }
    return new Sessions(last.size(), 0, byError, 0, last.size() - byError, histogram(), histogram(), histogram(),
        histogram(), turns);
  }

  private static Histogram histogram() {
    Histogram h = new Histogram(3);
    h.setAutoResize(true);
    return h;
  }

  private static void record(Histogram h, long value) {
    if (value >= 0) {
      h.recordValue(value);
    }
  }
}
