package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.Sessions;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The agent counters' words and TTFT growth per 1,000 tokens of context, hand-computed. */
class AgentSessionsWordsTest {

  private static Histogram of(long... values) {
    Histogram h = new Histogram(3);
    for (long v : values) {
      h.recordValue(v);
    }
    return h;
  }

  private static Sessions.ByTurn turn(int n, long ttftMillis, long prompt) {
    return new Sessions.ByTurn(n, of(ttftMillis * 1_000_000), of(ttftMillis * 1_000_000), of(5_000_000), of(prompt), 0, 0);
  }

  @Test
  void growthIsTtftP50DifferenceOverPromptDifference() {
    // turn 1: 100 ms at 2,000 tokens; turn 4: 160 ms at 6,000 tokens: 60 ms / 4,000 tokens = 15 ms per 1k
    Sessions s = new Sessions(4, 4, 0, 0, 0, of(1), of(4), of(1), of(1),
        List.of(turn(1, 100, 2000), turn(2, 120, 3000), turn(4, 160, 6000)), new Sessions.Agent(12, 6, 5, 6));
    assertThat(SessionsJsonWriter.ttftGrowth(s)).isCloseTo(15.0, within(0.2));
    assertThat(SessionWords.of(s)).contains("6 of 12 agent steps (50%) were tool calls; 5 tool results were sent.");
  }

  @Test
  void parallelCallsAreCountedApart() {
    Sessions s = new Sessions(4, 4, 0, 0, 0, of(1), of(4), of(1), of(1),
        List.of(turn(1, 100, 2000)), new Sessions.Agent(12, 6, 5, 15));
    assertThat(SessionWords.of(s)).contains("6 of 12 agent steps (50%) were tool calls (15 calls in all, some"
        + " answers calling several tools at once); 5 tool results were sent.");
  }

  @Test
  void oneBucketHasNoGrowthAndOtherSessionsNoAgentWords() {
    Sessions s = new Sessions(1, 1, 0, 0, 0, of(1), of(1), of(1), of(1), List.of(turn(1, 100, 2000)));
    assertThat(SessionsJsonWriter.ttftGrowth(s)).isNaN();
    assertThat(SessionWords.of(s)).doesNotContain("agent");
  }
}
