package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.request.FinishClass;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The console's finish line, and the one-line verdict on ignore_eos. */
class ConsoleFinishesTest {
  private static StageResult.Finishes finishes(long stop, long length, long filtered, long withMax, long reached) {
    return new StageResult.Finishes(Map.of(FinishClass.STOP, stop, FinishClass.LENGTH, length,
        FinishClass.CONTENT_FILTER, filtered), withMax, reached);
  }

  @Test
  void saysWhyAnswersEndedAndHowManyReachedTheirLimit() {
    assertThat(ConsoleReport.finishes(finishes(812, 40, 3, 855, 40)))
        .isEqualTo("stop 812, length 40, content_filter 3; 40 of 855 answers (4.68%) reached max_tokens");
    assertThat(ConsoleReport.finishes(finishes(10, 0, 0, 0, 0))).isEqualTo("stop 10");
    assertThat(ConsoleReport.finishes(StageResult.Finishes.NONE)).isEmpty();
  }

  @Test
  void saysWhetherIgnoreEosWasHonoured() {
    assertThat(ConsoleReport.ranToMax(finishes(0, 855, 0, 855, 855), "ignore_eos")).as("honoured: the finish line says so")
        .isEmpty();
    assertThat(ConsoleReport.ranToMax(finishes(815, 40, 0, 855, 40), "ignore_eos"))
        .startsWith("  note: ignore_eos not honoured: 815 of 855 answers (95.32%) ended before max_tokens;");
    assertThat(ConsoleReport.ranToMax(finishes(3, 0, 0, 0, 0), "ignore_eos")).isEmpty();
  }
}
