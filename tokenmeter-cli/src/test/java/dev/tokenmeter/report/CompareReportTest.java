package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CompareReportTest {
  @Test
  void pValuesNeverRoundAcrossAlpha() {
    assertThat(CompareReport.p(0.0004, 0.05)).isEqualTo("p<0.001");
    assertThat(CompareReport.p(0.01234, 0.05)).isEqualTo("p=0.012");
    assertThat(CompareReport.p(0.0497, 0.05)).isEqualTo("p=0.0497");
    assertThat(CompareReport.p(0.0503, 0.05)).isEqualTo("p=0.050");
    assertThat(CompareReport.p(1.0, 0.05)).isEqualTo("p=1.0");
  }

  @Test
  void runsAreLettered() {
    assertThat(CompareReport.name(0)).isEqualTo("A");
    assertThat(CompareReport.name(2)).isEqualTo("C");
    assertThat(CompareReport.name(26)).isEqualTo("R27");
  }
}
