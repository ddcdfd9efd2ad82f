package dev.tokenmeter.core.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ClientHealthTest {
  static final long MS = 1_000_000;
  static final long TEN_S = 10_000_000_000L;

  static Histogram lags(long valueNanos) {
    Histogram h = new Histogram(3);
    h.recordValueWithCount(valueNanos, 100);
    return h;
  }

  @Test
  void healthyClientIsNoBottleneck() {
    ClientHealth h =
        ClientHealth.assess(lags(MS), lags(MS), new ClientCpu(2 * 1_000_000_000L, 1_000_000_000L, 2),
            TEN_S, 1_000_000, true);
    assertThat(h.bottleneck()).isFalse();
    assertThat(h.reasons()).isEmpty();
    assertThat(h.cpuSeconds()).isEqualTo(2.0);
    assertThat(h.cpuFractionOfOneCore()).isCloseTo(0.2, within(1e-12));
    assertThat(h.cpuFractionOfAllCores()).isCloseTo(0.1, within(1e-12));
    assertThat(h.loopThreadCpuFraction()).isCloseTo(0.1, within(1e-12));
    assertThat(h.outputTokensPerCpuSecond()).isEqualTo(500_000.0);
  }

  @Test
  void eachThresholdIsAReason() {
    ClientHealth h =
        ClientHealth.assess(
            lags(20 * MS), lags(6 * MS), new ClientCpu(19_000_000_000L, 9_500_000_000L, 2),
            TEN_S, 1, true);
    assertThat(h.bottleneck()).isTrue();
    assertThat(h.reasons())
        .hasSize(4)
        .anySatisfy(r -> assertThat(r).startsWith("event-loop lag p99 6.00 ms"))
        .anySatisfy(r -> assertThat(r).startsWith("send lag p99 20.0"))
        .anySatisfy(r -> assertThat(r).startsWith("event-loop thread used 95% of a core"))
        .anySatisfy(r -> assertThat(r).startsWith("client process used 95% of all 2 cores"));
  }

  @Test
  void withSeveralLoopsTheBusiestOneIsNamed() {
    ClientHealth h =
        ClientHealth.assess(lags(MS), lags(MS), new ClientCpu(30_000_000_000L, 9_500_000_000L, 16, 4),
            TEN_S, 1, false);
    assertThat(h.eventLoops()).isEqualTo(4);
    assertThat(h.reasons()).containsExactly("busiest of 4 event-loop threads used 95% of a core (limit 90%)");
  }

  @Test
  void aClientHasAtLeastOneLoop() {
    assertThatThrownBy(() -> new ClientCpu(1, 1, 2, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one event loop");
    assertThat(new ClientCpu(1, 1, 2).eventLoops()).isEqualTo(1);
  }

  @Test
  void sendLagDoesNotCountInAClosedLoop() {
    ClientHealth h =
        ClientHealth.assess(lags(50 * MS), lags(MS), ClientCpu.UNKNOWN, TEN_S, 1, false);
    assertThat(h.bottleneck()).isFalse();
    assertThat(h.cpuSeconds()).isNaN();
    assertThat(h.outputTokensPerCpuSecond()).isNaN();
  }
}
