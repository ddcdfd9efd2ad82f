package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.Cost;
import org.junit.jupiter.api.Test;

/** The console's cost lines say what a conversation is: the measured sessions, or --turns requests. */
class CostReportTest {
  private static final Cost.Model MODEL = new Cost.Model("USD", 0.15, 0.60, Double.NaN, 1, Double.NaN, 3);
  private static final Cost.Figures FIGURES = new Cost.Figures(0.0003, 1.2, 0.00117, Double.NaN, 0);

  @Test
  void sessionsMakeTheConversationThoseMeasured() {
    String lines = CostReport.lines(MODEL, new Cost.StageCost(FIGURES, null, 3.9));
    assertThat(lines).contains("0.00117 USD per conversation (as the measured sessions went: 3.9 turns each on average)")
        .doesNotContain("requests)");
  }

  @Test
  void withoutSessionsAConversationIsTurnsRequests() {
    assertThat(CostReport.lines(MODEL, new Cost.StageCost(FIGURES, null)))
        .contains("0.00117 USD per conversation (3 requests)");
  }
}
