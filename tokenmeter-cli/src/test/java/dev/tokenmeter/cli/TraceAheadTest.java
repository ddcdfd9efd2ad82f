package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.workload.Trace;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** How many of a trace stage's prompts bench builds before the clock starts. */
class TraceAheadTest {
  private static List<Trace.Record> records(int n, int inputTokens) {
    return LongStream.range(0, n)
        .mapToObj(i -> new Trace.Record(i * 1_000_000L, inputTokens, 16, new long[0], null, 0, i + 1))
        .toList();
  }

  @Test
  void aBusyStretchWithinTheTokenBudgetIsBuiltWhole() {
    assertThat(TraceOptions.ahead(records(317, 8_000))).as("2.5M tokens: all of them").isEqualTo(317);
  }

  @Test
  void theBudgetCutsLongPromptsAndShortTracesKeepTheFloor() {
    assertThat(TraceOptions.ahead(records(2_000, 10_000))).isEqualTo(400); // 4M tokens / 10k
    assertThat(TraceOptions.ahead(records(2_000, 100_000))).as("never fewer than 256").isEqualTo(256);
    assertThat(TraceOptions.ahead(records(10, 100))).isEqualTo(256);
  }
}
