package dev.tokenmeter.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.request.ErrorClass;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Usage figures against ground truth computed by hand. Percentiles are HdrHistogram's, as in
 * {@code bench}: the value at rank ceil(p/100 · n), reported as the top of its bucket, where a value
 * v in [2^k, 2^(k+1)) falls in a bucket 2^(k−10) wide (3 significant digits).
 */
class UsageTest {
  private static final long MS = 1_000_000L;
  /** 2026-11-24T10:00:00Z. */
  private static final long T0 = Instant.parse("2026-11-24T10:00:00Z").toEpochMilli();
  private static final long DAY = 86_400_000L;

  @TempDir Path dir;
  private Ledger ledger;

  @BeforeEach
  void fill() {
    ledger = Ledgers.open(dir.resolve("usage.db").toString(), Map.of());
    try (LedgerWriter w = ledger.writer()) {
      // tenant a: five completed requests, TTFT 10/20/30/40/1000 ms, TPOT 10/20/25/40/50 ms
      long[] ttft = {10, 20, 30, 40, 1000};
      double[] tpot = {10, 20, 25, 40, 50};
      for (int i = 0; i < 5; i++) {
        w.accept(LedgerFixtures.usage("a", T0 + i, null, 100 + i, 10 * (i + 1), ttft[i] * MS, tpot[i] * MS, 0.25));
      }
      // tenant a: two failures; their times never enter the distributions, their tokens do
      w.accept(LedgerFixtures.usage("a", T0 + 10, ErrorClass.HTTP_5XX, 7, -1, 1 * MS, Double.NaN, Double.NaN));
      w.accept(LedgerFixtures.usage("a", T0 + 11, ErrorClass.TRUNCATED, 8, 4, 2 * MS, 1 * MS, 0.5));
      // tenant b, next day: one completed request, unpriced
      w.accept(LedgerFixtures.usage("b", T0 + DAY, null, 1_000, 2_000, 500 * MS, 5 * MS, Double.NaN));
      // tenant a, before every window used below
      w.accept(LedgerFixtures.usage("a", T0 - DAY, null, 1, 1, 1 * MS, 1 * MS, 100));
    }
  }

  private UsageReport usage(String tenant, UsageQuery.GroupBy by) {
    return ledger.usage(new UsageQuery(Instant.ofEpochMilli(T0), tenant, by));
  }

  @Test
  void spendIsOneTenantsTokensAndCostSinceAnInstantUnknownsAddingNothing() {
    // a since T0: 5 completed (100..104 in, 10..50 out, 0.25 each) + 7 in (output unknown, unpriced) + 8 + 4 (0.5)
    TenantSpend a = ledger.spend("a", Instant.ofEpochMilli(T0));
    assertThat(a.tokens()).isEqualTo(510 + 150 + 7 + 12);
    assertThat(a.cost()).isCloseTo(5 * 0.25 + 0.5, within(1e-9));
    assertThat(ledger.spend("a", Instant.ofEpochMilli(T0 - DAY)).tokens()).isEqualTo(510 + 150 + 7 + 12 + 2);
    assertThat(ledger.spend("b", Instant.ofEpochMilli(T0 + DAY))).isEqualTo(new TenantSpend(3_000, 0));
    assertThat(ledger.spend("nobody", Instant.ofEpochMilli(T0))).isEqualTo(TenantSpend.NONE);
  }

  @Test
  void percentilesOfTheCompletedRequestsOnly() {
    UsageRow a = usage("a", UsageQuery.GroupBy.TENANT).rows().get(0);
    // TTFT: n = 5, p50 -> rank 3 = 30 ms; 30e6 is in [2^24, 2^25): bucket 16,384 ns, top 30,015,487
    assertThat(a.ttftMs().count()).isEqualTo(5);
    assertThat(a.ttftMs().p50()).isEqualTo(30.015487);
    // p99 -> rank 5 = 1000 ms; 1e9 in [2^29, 2^30): bucket 524,288 ns, top 1,000,341,503
    assertThat(a.ttftMs().p99()).isEqualTo(1000.341503);
    // TPOT p50 -> 25 ms: top of its 16,384 ns bucket 25,001,983; p99 -> 50 ms, bucket 32,768: 50,003,967
    assertThat(a.tpotMs().p50()).isEqualTo(25.001983);
    assertThat(a.tpotMs().p99()).isEqualTo(50.003967);
    // decode TPS = 1000 / TPOT ms = 100, 50, 40, 25, 20 tokens/s, held in milli-tokens/s:
    // p50 -> rank 3 = 40 (40,000 in [2^15, 2^16): bucket 32, top 40,031); p10 -> rank 1 = 20 (bucket 16: 20,015)
    assertThat(a.decodeTps().p50()).isEqualTo(40.031);
    assertThat(a.decodeTps().p10()).isEqualTo(20.015);
    // and each within HdrHistogram's 0.1% of the exact order statistic
    assertThat(a.ttftMs().p50()).isCloseTo(30, within(0.03));
    assertThat(a.decodeTps().p10()).isCloseTo(20, within(0.02));
  }

  @Test
  void countsTokensErrorsAndSpend() {
    UsageRow a = usage(null, UsageQuery.GroupBy.TENANT).rows().get(0);
    assertThat(a.key()).isEqualTo("a");
    assertThat(a.requests()).isEqualTo(7);
    assertThat(a.errors()).isEqualTo(2);
    assertThat(a.errorsByClass()).containsExactly(Map.entry("http_5xx", 1L), Map.entry("truncated", 1L));
    assertThat(a.inputTokens()).isEqualTo(100 + 101 + 102 + 103 + 104 + 7 + 8);
    assertThat(a.outputTokens()).as("unknown (-1) counts nothing").isEqualTo(10 + 20 + 30 + 40 + 50 + 4);
    assertThat(a.reasoningTokens()).isEqualTo(7 * 3);
    assertThat(a.cachedTokens()).isEqualTo(7 * 2);
    assertThat(a.spend()).containsExactly(Map.entry("USD", 5 * 0.25 + 0.5));
    assertThat(a.unpricedRequests()).isEqualTo(1);
  }

  /** A client that hung up is not the service failing: listed as cancelled, not counted in errors. */
  @Test
  void aClientCancellationIsNotAnError() {
    Ledger l = Ledgers.open(dir.resolve("cancelled.db").toString(), Map.of());
    try (LedgerWriter w = l.writer()) {
      w.accept(LedgerFixtures.usage("c", T0, ErrorClass.CANCELLED, 5, 2, 1 * MS, Double.NaN, Double.NaN));
      w.accept(LedgerFixtures.usage("c", T0 + 1, ErrorClass.HTTP_5XX, 5, -1, 1 * MS, Double.NaN, Double.NaN));
      w.accept(LedgerFixtures.usage("c", T0 + 2, null, 5, 3, 10 * MS, 2 * MS, Double.NaN));
    }
    UsageReport report = l.usage(new UsageQuery(Instant.ofEpochMilli(T0), null, UsageQuery.GroupBy.TENANT));
    UsageRow c = report.rows().get(0);
    assertThat(c.requests()).isEqualTo(3);
    assertThat(c.errors()).isEqualTo(1);
    assertThat(c.cancelled()).isEqualTo(1);
    assertThat(c.errorsByClass()).containsExactly(Map.entry("cancelled", 1L), Map.entry("http_5xx", 1L));
    assertThat(UsageRender.table(report)).contains("errors, c: http_5xx 1\n")
        .contains("cancelled by the client (not errors), c: 1");
  }

  @Test
  void theTotalMergesTheGroups() {
    UsageReport r = usage(null, UsageQuery.GroupBy.TENANT);
    assertThat(r.rows()).extracting(UsageRow::key).containsExactly("a", "b");
    UsageRow total = r.total();
    assertThat(total.key()).isEqualTo("total");
    assertThat(total.requests()).isEqualTo(8);
    assertThat(total.outputTokens()).isEqualTo(154 + 2_000);
    // six completed TTFTs: 10, 20, 30, 40, 500, 1000 ms; p50 -> rank 3 = 30 ms
    assertThat(total.ttftMs().count()).isEqualTo(6);
    assertThat(total.ttftMs().p50()).isEqualTo(30.015487);
    assertThat(total.unpricedRequests()).isEqualTo(2);
  }

  @Test
  void groupsByDayModelAndUpstream() {
    assertThat(usage(null, UsageQuery.GroupBy.DAY).rows()).extracting(UsageRow::key, UsageRow::requests)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("2026-11-24", 7L), org.assertj.core.groups.Tuple.tuple("2026-11-25", 1L));
    assertThat(usage(null, UsageQuery.GroupBy.MODEL).rows()).extracting(UsageRow::key).containsExactly("m-a", "m-b");
    assertThat(usage(null, UsageQuery.GroupBy.UPSTREAM).rows()).extracting(UsageRow::key).containsExactly("up");
  }

  @Test
  void theWindowAndTheTenantFilter() {
    assertThat(usage("b", UsageQuery.GroupBy.TENANT).rows()).extracting(UsageRow::key).containsExactly("b");
    UsageReport all = ledger.usage(new UsageQuery(Instant.ofEpochMilli(T0 - DAY), null, UsageQuery.GroupBy.TENANT));
    assertThat(all.total().requests()).as("the older request is in the wider window").isEqualTo(9);
    UsageReport none = ledger.usage(new UsageQuery(Instant.ofEpochMilli(T0 + 2 * DAY), null, UsageQuery.GroupBy.TENANT));
    assertThat(none.rows()).isEmpty();
    assertThat(none.total().requests()).isZero();
    assertThat(none.total().ttftMs().p50()).isNaN();
  }

  @Test
  void aRequestWithoutAModelIsGroupedUnderNone() {
    try (LedgerWriter w = ledger.writer()) {
      w.accept(LedgerFixtures.sample(4, T0 + 5));
    }
    List<String> keys = usage(null, UsageQuery.GroupBy.MODEL).rows().stream().map(UsageRow::key).toList();
    assertThat(keys).contains(UsageRow.NONE);
  }

  @Test
  void groupsByConversationKeyWithTheUnkeyedUnderNone() {
    try (LedgerWriter w = ledger.writer()) {
      w.accept(LedgerFixtures.sample(2, T0 + 5)); // conv-2
      w.accept(LedgerFixtures.sample(52, T0 + 6)); // conv-2 again
      w.accept(LedgerFixtures.sample(3, T0 + 7)); // conv-3
    }
    assertThat(usage(null, UsageQuery.GroupBy.CONVERSATION).rows()).extracting(UsageRow::key, UsageRow::requests)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(UsageRow.NONE, 8L),
            org.assertj.core.groups.Tuple.tuple("conv-2 \"é\"", 2L), org.assertj.core.groups.Tuple.tuple("conv-3 \"é\"", 1L));
  }

  @Test
  void groupByParsesAnyCaseAndRefusesTheRest() {
    assertThat(UsageQuery.GroupBy.parse(" Day ")).isEqualTo(UsageQuery.GroupBy.DAY);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> UsageQuery.GroupBy.parse("region"))
        .hasMessage("--by 'region' is not a grouping; use one of tenant, model, upstream, day, proxy, conversation");
  }
}
