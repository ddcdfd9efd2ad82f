package dev.tokenmeter.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.analysis.Distribution;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UsageRenderTest {
  private static final UsageQuery QUERY =
      new UsageQuery(Instant.parse("2026-11-24T10:00:00Z"), null, UsageQuery.GroupBy.TENANT);

  private static Distribution dist(double p10, double p50, double p99) {
    return new Distribution(3, p10, p50, p10, p10, p10, p50, p99, p99, p99, p99, p99);
  }

  private static final UsageRow A =
      new UsageRow("acme", 12, 2, Map.of("truncated", 1L, "http_5xx", 1L), 1200, 3400, 50, 600,
          dist(80, 120.25, 900.5), dist(9, 10, 30), dist(25.5, 48.75, 60), Map.of("USD", 0.123456), 0);
  private static final UsageRow B =
      new UsageRow("beta, inc", 1, 0, Map.of(), 10, 20, 0, 0, Distribution.EMPTY, Distribution.EMPTY,
          Distribution.EMPTY, Map.of(), 1);
  private static final UsageRow TOTAL =
      new UsageRow("total", 13, 2, Map.of("truncated", 1L, "http_5xx", 1L), 1210, 3420, 50, 600,
          dist(80, 120.25, 900.5), dist(9, 10, 30), dist(25.5, 48.75, 60), Map.of("USD", 0.123456), 1);
  private static final UsageReport REPORT = new UsageReport(QUERY, List.of(A, B), TOTAL);

  @Test
  void tableHasOneAlignedLinePerGroupTheTotalAndTheErrorClasses() {
    String t = UsageRender.table(REPORT);
    List<String> lines = t.lines().toList();
    assertThat(lines.get(0)).isEqualTo("Usage since 2026-11-24T10:00:00Z, by tenant");
    assertThat(lines.get(1)).startsWith("tenant     requests  errors  in tok  out tok  reasoning  cached  TTFT p50 ms");
    assertThat(lines.get(2)).startsWith("acme             12       2    1200     3400         50     600        120.3");
    assertThat(lines.get(2)).endsWith("48.8          25.5  0.1235 USD");
    assertThat(lines.get(3)).startsWith("beta, inc         1       0      10       20").contains(" - ").endsWith("  -");
    assertThat(lines.get(4)).startsWith("total            13");
    assertThat(lines.get(5)).isEqualTo("errors, acme: http_5xx 1, truncated 1");
    assertThat(lines).hasSize(6);
    // every table line is as wide as the header: the columns line up
    assertThat(lines.subList(1, 5)).allSatisfy(l -> assertThat(l).hasSameSizeAs(lines.get(1).substring(0, l.length())));
  }

  @Test
  void anEmptyWindowSaysSo() {
    UsageReport empty = new UsageReport(
        new UsageQuery(Instant.parse("2026-11-24T10:00:00Z"), "acme", UsageQuery.GroupBy.DAY), List.of(), B);
    assertThat(UsageRender.table(empty))
        .isEqualTo("Usage since 2026-11-24T10:00:00Z, tenant acme, by day\nNo requests in this window.\n");
  }

  @Test
  void csvHasFixedColumnsQuotingAndTheTotal() {
    List<String> lines = UsageRender.csv(REPORT).lines().toList();
    assertThat(lines.get(0)).isEqualTo(
        "tenant,requests,errors,input_tokens,output_tokens,reasoning_tokens,cached_tokens,ttft_p50_ms,ttft_p99_ms,"
            + "tpot_p50_ms,tpot_p99_ms,decode_tps_p50,decode_tps_p10,spend,currency,unpriced_requests,errors_connect,"
            + "errors_http_429,errors_http_4xx,errors_http_5xx,errors_timeout_first_token,errors_timeout_idle,"
            + "errors_timeout_total,errors_protocol,errors_stream_error,errors_truncated,errors_content_filter,errors_cancelled");
    assertThat(lines.get(1)).isEqualTo(
        "acme,12,2,1200,3400,50,600,120.250,900.500,10.000,30.000,48.750,25.500,0.123456,USD,0,0,0,0,1,0,0,0,0,0,1,0,0");
    assertThat(lines.get(2)).isEqualTo("\"beta, inc\",1,0,10,20,0,0,,,,,,,,,1,0,0,0,0,0,0,0,0,0,0,0,0");
    assertThat(lines.get(3)).startsWith("total,13,");
    assertThat(lines).hasSize(4);
  }

  @Test
  void jsonHasTheQueryRowsAndTotal() throws Exception {
    JsonNode j = new ObjectMapper().readTree(UsageRender.json(REPORT));
    assertThat(j.get("since").asText()).isEqualTo("2026-11-24T10:00:00Z");
    assertThat(j.get("tenant").isNull()).isTrue();
    assertThat(j.get("by").asText()).isEqualTo("tenant");
    JsonNode a = j.get("rows").get(0);
    assertThat(a.get("key").asText()).isEqualTo("acme");
    assertThat(a.get("errors_by_class").get("http_5xx").asLong()).isEqualTo(1);
    assertThat(a.get("ttft_p99_ms").asDouble()).isEqualTo(900.5);
    assertThat(a.get("decode_tps_p10").asDouble()).isEqualTo(25.5);
    assertThat(a.get("spend").get("USD").asDouble()).isEqualTo(0.123456);
    JsonNode b = j.get("rows").get(1);
    assertThat(b.get("ttft_p50_ms").isNull()).isTrue();
    assertThat(b.get("unpriced_requests").asLong()).isEqualTo(1);
    assertThat(j.get("total").get("requests").asLong()).isEqualTo(13);
  }
}
