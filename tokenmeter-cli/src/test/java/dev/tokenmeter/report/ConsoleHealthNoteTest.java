package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.ClientHealth;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The console's client line says when the client had a single CPU, and only then. */
class ConsoleHealthNoteTest {
  private static final long MS = 1_000_000;
  private static final long TEN_S = 10_000_000_000L;

  private static Histogram lags(long nanos) {
    Histogram h = new Histogram(3);
    h.recordValueWithCount(nanos, 100);
    return h;
  }

  private static ClientHealth health(int cpus, long processCpuNanos) {
    return ClientHealth.assess(lags(MS), lags(MS), new ClientCpu(processCpuNanos, processCpuNanos / 2, cpus),
        TEN_S, 1_000_000, false);
  }

  @Test
  void oneCpuGetsTheNote() {
    String line = ConsoleReport.health(health(1, 2_000_000_000L));
    assertThat(line).startsWith("loop lag p99 ").contains("(not the bottleneck)");
    assertThat(line).contains("note: the client had one CPU").contains("two or more CPUs");
  }

  @Test
  void twoCpusOrUnknownGetNone() {
    assertThat(ConsoleReport.health(health(2, 2_000_000_000L))).doesNotContain("note:");
    assertThat(ConsoleReport.health(health(16, 2_000_000_000L))).doesNotContain("note:");
    assertThat(ConsoleReport.health(ClientHealth.assess(lags(MS), lags(MS), ClientCpu.UNKNOWN, TEN_S, 1, false)))
        .doesNotContain("note:");
  }

  @Test
  void theNoteFollowsABottleneckWarning() {
    String line = ConsoleReport.health(health(1, 9_500_000_000L)); // 95% of the one core
    assertThat(line).contains("WARNING: the client may have been the bottleneck");
    assertThat(line.indexOf("note: the client had one CPU")).isGreaterThan(line.indexOf("WARNING"));
  }
}
