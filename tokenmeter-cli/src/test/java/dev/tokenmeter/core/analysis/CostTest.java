package dev.tokenmeter.core.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.Cost.Figures;
import dev.tokenmeter.core.metrics.SampleStages;
import org.junit.jupiter.api.Test;

/** Cost figures worked out by hand. */
class CostTest {
  private static final double NONE = Double.NaN;

  @Test
  void tokenPricing() {
    // $0.15 / $0.60 per 1M; 1000 in + 250 out: 150e-6 + 150e-6 = $0.0003 a request,
    // $0.0003 / 250 * 1e6 = $1.20 per 1M output tokens, 3 turns $0.0009,
    // 10,000 a day for 30 days: $90.
    Cost.Model m = new Cost.Model("USD", 0.15, 0.60, NONE, 1, 10_000, 3);
    Figures f = Cost.tokens(m, 1000, 250);
    assertThat(f.perRequest()).isCloseTo(0.0003, within(1e-15));
    assertThat(f.perMillionOutputTokens()).isCloseTo(1.2, within(1e-12));
    assertThat(f.perConversation()).isCloseTo(0.0009, within(1e-15));
    assertThat(f.perMonth()).isCloseTo(90, within(1e-9));
    assertThat(f.deployments()).isZero();
  }

  @Test
  void gpuPricingAtTheMeasuredThroughput() {
    // 2 GPUs at $2.50/h = $5/h = $0.00138889/s. At 4 req/s: $0.000347222 a request;
    // at 1000 output tok/s: $1.388889 per 1M output tokens.
    Cost.Model m = new Cost.Model("USD", NONE, NONE, 2.5, 2, 1_000_000, 2);
    Figures f = Cost.gpu(m, 4, 1000);
    assertThat(f.perRequest()).isCloseTo(5.0 / 3600 / 4, within(1e-15));
    assertThat(f.perMillionOutputTokens()).isCloseTo(1.388889, within(1e-6));
    assertThat(f.perConversation()).isCloseTo(2 * 5.0 / 3600 / 4, within(1e-15));
    // 1,000,000 a day = 11.57 req/s over 4 req/s per deployment: 3 deployments,
    // 3 x 2 GPUs x $2.50 x 24 h x 30 days = $10,800.
    assertThat(f.deployments()).isEqualTo(3);
    assertThat(f.perMonth()).isCloseTo(10_800, within(1e-6));

    // Exactly 8 req/s (691,200 a day) fills 2 deployments, not 3.
    Figures exact = Cost.gpu(new Cost.Model("USD", NONE, NONE, 2.5, 2, 691_200, 1), 4, 1000);
    assertThat(exact.deployments()).isEqualTo(2);
    assertThat(exact.perMonth()).isCloseTo(7_200, within(1e-6));
  }

  @Test
  void undefinedWithoutThroughputOrTraffic() {
    Cost.Model m = new Cost.Model("EUR", NONE, NONE, 2, 1, NONE, 1);
    Figures f = Cost.gpu(m, 0, 0);
    assertThat(f.perRequest()).isNaN();
    assertThat(f.perMillionOutputTokens()).isNaN();
    assertThat(f.perMonth()).isNaN();
    assertThat(Cost.gpu(m, 4, 100).perMonth()).isNaN(); // no traffic: no projection
    assertThatThrownBy(() -> new Cost.Model("USD", NONE, NONE, NONE, 1, NONE, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aStageIsCostedFromItsOwnNumbers() {
    StageResult r = SampleStages.closed(7);
    Cost.Model both = new Cost.Model("USD", 1, 2, 3, 1, 86_400, 1);
    Cost.StageCost c = Cost.of(both, r);
    double in = r.metric(Metric.INPUT_TOKENS).mean();
    double out = r.metric(Metric.OUTPUT_TOKENS).mean();
    assertThat(c.tokens().perRequest()).isCloseTo((in * 1 + out * 2) / 1e6, within(1e-15));
    assertThat(c.gpu().perRequest())
        .isCloseTo(3.0 / 3600 / r.throughput().requestsPerSecond(), within(1e-15));
    // 86,400 a day is 1 req/s.
    assertThat(c.gpu().deployments())
        .isEqualTo((long) Math.ceil(1 / r.throughput().requestsPerSecond()));
    assertThat(Cost.of(new Cost.Model("USD", 1, 2, NONE, 1, NONE, 1), r).gpu()).isNull();
  }
}
