package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerWriter;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production report and comparison end to end: the proxy in front of the in-process
 * simulator, its records written to a ledger, then {@code proxy report} and {@code compare
 * --production} read it back as a user would.
 */
@Timeout(120)
class ProductionReportIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** Closed-loop traffic through a proxy, at each of {@code users}, written to {@code ledger}. */
  private static List<MeteredRequest> meter(SimFixture sim, Path ledger, long durationMillis, int... users) {
    try (ProxyFixture proxy = ProxyFixture.start(sim.baseUrl())) {
      StageKit.warmUpOnce();
      int expected = 0;
      for (int u : users) {
        expected += StageKit.run(StageKit.stage(proxy.baseUrl()).closed(u).durationMillis(durationMillis).maxTokens(8))
            .requests().size();
      }
      List<MeteredRequest> records = proxy.awaitRecords(expected);
      Ledger l = Ledgers.open(ledger.toString(), Map.of());
      try (LedgerWriter w = l.writer()) {
        records.forEach(w::accept);
      }
      return records;
    }
  }

  @Test
  void proxyReportAtTwoConcurrenciesMatchesTheProxysRecords() throws Exception {
    Path ledger = dir.resolve("ledger.db");
    List<MeteredRequest> records;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 4))) {
      records = meter(sim, ledger, 1500, 1, 4);
    }
    Cli.Result r = Cli.run("proxy", "report", "--ledger", ledger.toString(), "--since", "1h", "--out",
        dir.resolve("report").toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    JsonNode j = JSON.readTree(dir.resolve("report/production.json").toFile());
    assertThat(r.out()).startsWith(j.at("/answer/0").asText());
    assertThat(j.at("/total/requests").asLong()).isEqualTo(records.size());
    assertThat(j.at("/total/errors").asLong()).isEqualTo(records.stream().filter(m -> !m.ok()).count());
    Map<Integer, List<MeteredRequest>> byConcurrency = records.stream()
        .collect(Collectors.groupingBy(m -> m.inFlightAtStart() + 1, TreeMap::new, Collectors.toList()));
    // Both loads are there: c=1 alone, and c=4 (in flight 3) for most of the second stage.
    assertThat(byConcurrency).containsKeys(1, 4);
    assertThat(byConcurrency.get(4)).hasSizeGreaterThan(20);
    JsonNode curve = j.get("curve");
    assertThat(curve).hasSize(byConcurrency.size());
    int i = 0;
    for (Map.Entry<Integer, List<MeteredRequest>> e : byConcurrency.entrySet()) {
      JsonNode bin = curve.get(i++);
      List<MeteredRequest> rs = e.getValue();
      assertThat(bin.get("concurrency").asInt()).isEqualTo(e.getKey());
      assertThat(bin.get("requests").asLong()).isEqualTo(rs.size());
      double[] tps = rs.stream().filter(MeteredRequest::ok).mapToDouble(MeteredRequest::decodeTokensPerSecond)
          .filter(v -> !Double.isNaN(v)).sorted().toArray();
      assertThat(bin.at("/decode_tps/count").asLong()).isEqualTo(tps.length);
      if (tps.length > 0) {
        // nearest rank, as HdrHistogram reads it, within its 3 significant digits
        assertThat(bin.at("/decode_tps/p50").asDouble()).as("c=" + e.getKey())
            .isCloseTo(rank(tps, 0.50), org.assertj.core.data.Percentage.withPercentage(0.1));
        assertThat(bin.at("/decode_tps/p10").asDouble()).as("c=" + e.getKey())
            .isCloseTo(rank(tps, 0.10), org.assertj.core.data.Percentage.withPercentage(0.1));
      }
      double[] ttft = rs.stream().filter(MeteredRequest::ok).mapToDouble(m -> m.ttftNanos() / 1e6).sorted().toArray();
      assertThat(bin.at("/ttft_ms/p99").asDouble()).isCloseTo(rank(ttft, 0.99),
          org.assertj.core.data.Percentage.withPercentage(0.1));
    }
    JsonNode tenant = j.at("/tenants/0");
    assertThat(tenant.get("tenant").asText()).isEqualTo(MeteredRequest.ANONYMOUS);
    assertThat(tenant.get("output_tokens").asLong())
        .isEqualTo(records.stream().mapToLong(m -> Math.max(0, m.outputTokens())).sum())
        .isEqualTo(8L * records.size());
    assertThat(tenant.get("input_tokens").asLong())
        .isEqualTo(records.stream().mapToLong(m -> Math.max(0, m.inputTokens())).sum());
    long bucketed = 0;
    for (JsonNode b : j.at("/errors_over_time/buckets")) {
      bucketed += b.get("requests").asLong();
    }
    assertThat(bucketed).isEqualTo(records.size());
  }

  @Test
  void productionOnASlowerServerIsSlowerThanTheBenchmarkAtTheSameConcurrency() {
    Path bench = dir.resolve("bench");
    try (SimFixture fast = SimFixture.start(SimFixture.config(10, 5))) {
      Cli.Result b = Cli.run("bench", "--url", fast.baseUrl(), "--concurrency", "2", "--duration", "6s", "--warmup",
          "500ms", "--cooldown", "0s", "--input-tokens", "32", "--output-tokens", "8", "--out", bench.toString(), "-q");
      assertThat(b.exitCode()).as(b.both()).isZero();
    }
    Path ledger = dir.resolve("ledger.db");
    try (SimFixture slow = SimFixture.start(SimFixture.config(10, 8))) { // every token 3 ms later: TPOT 5 -> 8 ms
      meter(slow, ledger, 6000, 2);
    }
    Cli.Result r = Cli.run("compare", bench.toString(), "--production", ledger.toString(), "--since", "1h");
    assertThat(r.exitCode()).as(r.both()).isZero();
    String verdict = r.out().lines().filter(l -> l.startsWith("At c=2, ")).findFirst().orElseThrow(() -> new AssertionError(r.both()));
    // decode TPS 1000/8 against 1000/5 per user: 37.5% slower, give or take the machine's noise
    assertThat(verdict).as(r.out()).containsPattern("production is (2[5-9]|3\\d|4[0-5])% slower than the benchmark")
        .contains(", significant (p").contains("; the p-value rests on ").contains("one-second blocks");
    assertThat(r.out()).contains("A (benchmark): " + bench).contains("B (production): ledger " + ledger);
  }

  private static double rank(double[] sorted, double q) {
    return sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)];
  }

}
