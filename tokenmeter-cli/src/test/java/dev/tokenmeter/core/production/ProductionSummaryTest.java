package dev.tokenmeter.core.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageSample;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProductionSummaryTest {
  private static final Instant SINCE = Instant.parse("2026-11-25T10:00:00Z");

  private static ProductionRequest at(long offsetSeconds, String tenant, String errorClass, long in, long out,
      double cost, String currency) {
    return new ProductionRequest(SINCE.toEpochMilli() + offsetSeconds * 1000, 1, tenant, "m", errorClass,
        errorClass == null ? 50 : Double.NaN, 20, 500, errorClass == null ? 50 : Double.NaN, in, out, cost, currency);
  }

  @Test
  void tenantsTotalsAndErrorsPerBucketOfTime() {
    List<ProductionRequest> rs = List.of(
        at(0, "acme", null, 100, 10, 0.25, "USD"),
        at(59, "acme", "http_5xx", -1, -1, Double.NaN, null),
        at(61, "beta", null, 7, 3, 1.5, "EUR"),
        at(3599, "acme", "timeout", 20, -1, 0.05, "USD"));
    // one hour: 30-second buckets are the shortest giving at most 120 (3600 / 30 = 120; 10 s would give 360)
    ProductionSummary s = ProductionSummary.of(rs, SINCE, SINCE.plusSeconds(3600), null, null, 30);
    assertThat(s.bucketSeconds()).isEqualTo(30);
    assertThat(s.overTime()).hasSize(120);
    assertThat(s.overTime().get(0).requests()).isEqualTo(1);
    assertThat(s.overTime().get(1)).isEqualTo(new ProductionSummary.TimeBucket(SINCE.toEpochMilli() + 30_000, 1,
        Map.of("http_5xx", 1L)));
    assertThat(s.overTime().get(2).requests()).isEqualTo(1);
    assertThat(s.overTime().get(119).errorsByClass()).containsEntry("timeout", 1L);
    assertThat(s.overTime().stream().mapToLong(ProductionSummary.TimeBucket::requests).sum()).isEqualTo(4);
    assertThat(s.total().requests()).isEqualTo(4);
    assertThat(s.total().errors()).isEqualTo(2);
    assertThat(s.total().decodeTps().count()).isEqualTo(2);
    assertThat(s.errorsByClass()).containsExactly(Map.entry("http_5xx", 1L), Map.entry("timeout", 1L));
    assertThat(s.tenants()).extracting(ProductionSummary.TenantRow::tenant).containsExactly("acme", "beta");
    ProductionSummary.TenantRow acme = s.tenants().get(0);
    assertThat(acme.requests()).isEqualTo(3);
    assertThat(acme.errors()).isEqualTo(2);
    assertThat(acme.inputTokens()).isEqualTo(120);
    assertThat(acme.outputTokens()).isEqualTo(10);
    assertThat(acme.spend().get("USD")).isCloseTo(0.30, within(1e-12));
    assertThat(acme.unpriced()).isEqualTo(1);
    assertThat(s.tenants().get(1).spend()).containsExactly(Map.entry("EUR", 1.5));
  }

  @Test
  void bucketLengthsGrowWithTheWindow() {
    assertThat(ProductionSummary.bucketSeconds(120_000)).isEqualTo(1);
    assertThat(ProductionSummary.bucketSeconds(121_000)).isEqualTo(5);
    assertThat(ProductionSummary.bucketSeconds(24 * 3_600_000L)).isEqualTo(900); // 96 buckets of 15 min
    assertThat(ProductionSummary.bucketSeconds(7 * 86_400_000L)).isEqualTo(6 * 3600); // 28 of 6 h
    assertThat(ProductionSummary.bucketSeconds(365 * 86_400_000L)).isEqualTo(4 * 86_400); // 92 of 4 days
  }

  @Test
  void aBackwardsWindowIsRefused() {
    assertThatThrownBy(() -> ProductionSummary.of(List.of(), SINCE, SINCE, null, null, 30))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("before it starts");
  }

  @Test
  void productionStagesAreBinsLabelledLikeBenchStagesWithTheirStartTimes() {
    List<ProductionRequest> rs = List.of(
        new ProductionRequest(1_000, 2, "a", null, null, 10, 5, 100, 200, 1, 2, Double.NaN, null),
        new ProductionRequest(4_500, 2, "a", null, null, 30, 10, 300, 100, 1, 2, Double.NaN, null),
        new ProductionRequest(2_000, 1, "a", null, "connect", Double.NaN, Double.NaN, Double.NaN, Double.NaN, -1, -1,
            Double.NaN, null),
        new ProductionRequest(3_000, 2, "a", null, null, 20, Double.NaN, 200, Double.NaN, 1, 1, Double.NaN, null),
        // refused by the proxy (a 429 over budget): in no bin, but in the totals
        new ProductionRequest(3_500, 0, "a", null, "http_4xx", Double.NaN, Double.NaN, Double.NaN, Double.NaN, -1, -1,
            Double.NaN, null));
    ProductionSummary summary = ProductionSummary.of(rs, Instant.EPOCH, Instant.EPOCH.plusSeconds(10), null, null, 30);
    assertThat(summary.tenants().getFirst().requests()).isEqualTo(5);
    assertThat(summary.errorsByClass()).containsEntry("http_4xx", 1L);
    assertThat(summary.curve().bins()).extracting(InFlightCurve.Bin::concurrency).containsExactly(1, 2);
    List<StageSample> st = ProductionStages.of(rs);
    assertThat(st).extracting(StageSample::label).containsExactly("c=1", "c=2");
    assertThat(st.get(0).failed()).isEqualTo(1);
    assertThat(st.get(0).completed()).isZero();
    StageSample two = st.get(1);
    assertThat(two.index()).isEqualTo(1);
    assertThat(two.completed()).isEqualTo(3);
    assertThat(two.perRequest().get(Metric.TTFT)).containsExactly(10, 30, 20);
    assertThat(two.atSeconds().get(Metric.TTFT)).containsExactly(0, 3.5, 2.0);
    // the one-token request has no TPOT: its time goes with it
    assertThat(two.perRequest().get(Metric.TPOT)).containsExactly(5, 10);
    assertThat(two.atSeconds().get(Metric.TPOT)).containsExactly(0, 3.5);
    assertThat(two.distributions().get(Metric.E2E).p50()).isCloseTo(200, within(0.2));
    assertThat(two.distributions().get(Metric.DECODE_TPS).max()).isCloseTo(200, within(0.2));
    assertThat(two.outputTokensPerSecond()).isNaN();
  }
}
