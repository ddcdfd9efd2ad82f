package dev.tokenmeter.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.FinishClass;
import org.junit.jupiter.api.Test;

class FinishTallyTest {
  @Test
  void countsAnswersByClassAndThoseThatReachedTheirLimit() {
    FinishTally t = new FinishTally();
    t.add(null, "stop", 256, 100); // stopped early
    t.add(null, "length", 256, 256); // ran to the limit
    t.add(null, "length", 256, 300); // a server that overshot still reached it
    t.add(null, "tool_calls", -1, 20); // no limit named
    t.add(ErrorClass.CONTENT_FILTER, "safety", 256, 12);
    t.add(ErrorClass.HTTP_5XX, null, 256, 0); // no answer: not counted
    t.add(ErrorClass.TRUNCATED, "stop", 256, 256); // cut off: no whole answer
    StageResult.Finishes f = t.result();
    assertThat(f.byClass()).containsEntry(FinishClass.STOP, 1L).containsEntry(FinishClass.LENGTH, 2L)
        .containsEntry(FinishClass.TOOL_CALLS, 1L).containsEntry(FinishClass.CONTENT_FILTER, 1L)
        .containsEntry(FinishClass.OTHER, 0L);
    assertThat(f.answers()).isEqualTo(5);
    assertThat(f.withMaxTokens()).isEqualTo(4);
    assertThat(f.reachedMaxTokens()).isEqualTo(2);
    assertThat(f.reachedShare()).isEqualTo(0.5);
    assertThat(StageResult.Finishes.NONE.reachedShare()).isNaN();
    assertThat(StageResult.Finishes.NONE.byClass()).hasSize(5);
  }
}
