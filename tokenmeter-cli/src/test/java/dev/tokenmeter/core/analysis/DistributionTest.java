package dev.tokenmeter.core.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class DistributionTest {

  @Test
  void percentilesInTheReportUnit() {
    Histogram h = new Histogram(3);
    for (long ms = 1; ms <= 1000; ms++) {
      h.recordValue(ms * 1_000_000);
    }
    Distribution d = Distribution.of(h, Metric.TTFT);
    assertThat(d.count()).isEqualTo(1000);
    assertThat(d.min()).isCloseTo(1.0, withinPercentage(0.1));
    assertThat(d.mean()).isCloseTo(500.5, withinPercentage(0.1));
    assertThat(d.p1()).isCloseTo(10.0, withinPercentage(0.1));
    assertThat(d.p10()).isCloseTo(100.0, withinPercentage(0.1));
    assertThat(d.p50()).isCloseTo(500.0, withinPercentage(0.1));
    assertThat(d.p99()).isCloseTo(990.0, withinPercentage(0.1));
    assertThat(d.p999()).isCloseTo(999.0, withinPercentage(0.1));
    assertThat(d.max()).isCloseTo(1000.0, withinPercentage(0.1));
  }

  @Test
  void decodeTpsIsStoredInMilliTokens() {
    Histogram h = new Histogram(3);
    h.recordValue(42_500); // 42.5 tokens/s
    assertThat(Distribution.of(h, Metric.DECODE_TPS).p50()).isCloseTo(42.5, withinPercentage(0.1));
    assertThat(Metric.DECODE_TPS.reportKey()).isEqualTo("decode_tps");
    assertThat(Metric.E2E_FROM_SCHEDULED.reportKey()).isEqualTo("e2e_from_scheduled_ms");
  }

  @Test
  void emptyHistogramHasNoValues() {
    Distribution d = Distribution.of(new Histogram(3), Metric.TTFT);
    assertThat(d.count()).isZero();
    assertThat(d.p50()).isNaN();
    assertThat(d).isEqualTo(Distribution.EMPTY);
  }
}
