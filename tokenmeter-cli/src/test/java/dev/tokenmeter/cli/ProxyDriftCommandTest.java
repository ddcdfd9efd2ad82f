package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerWriter;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code proxy drift} and {@code proxy export-workload} over a ledger written here; their bad input. */
class ProxyDriftCommandTest {
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");
  @TempDir Path dir;

  private CommandHarness.Run drift(String... args) {
    return CommandHarness.run(new ProxyDriftCommand(InstantSource.fixed(NOW), Map.of()), args);
  }

  private CommandHarness.Run export(String... args) {
    return CommandHarness.run(new ProxyExportWorkloadCommand(InstantSource.fixed(NOW), Map.of()), args);
  }

  /** A ledger of {@code n} completed requests of {@code inputTokens} in the last hour, and a model listing. */
  private Path ledger(int n, int inputTokens) {
    Path file = dir.resolve("ledger.db");
    Ledger l = Ledgers.open(file.toString(), Map.of());
    try (LedgerWriter w = l.writer()) {
      for (int i = 0; i < n; i++) {
        w.accept(request(NOW.minusSeconds(3600 - 30 * i), "llama", inputTokens + i % 5, 20 + i % 11, 10));
      }
      w.accept(request(NOW.minusSeconds(10), null, -1, -1, -1));
    }
    return file;
  }

  private static MeteredRequest request(Instant at, String model, int in, int out, int cached) {
    return MeteredRequestBuilder.chat("acme", model, "vllm").id("r" + at.toEpochMilli() + model)
        .startedAt(at.toEpochMilli()).endpoint(model == null ? "/v1/models" : "/v1/chat/completions")
        .streamed(model != null).tokens(in, out, 0, cached).source(TokenCountSource.USAGE)
        .times(1000, 10_000_000, 1e6, 50_000_000).chunks(out).build();
  }

  /** A bench run's folder: a minimal summary.json and a requests.jsonl of 60 fixed-length requests. */
  private Path baseline(int inputTokens) throws Exception {
    return baseline(inputTokens, String.valueOf(inputTokens));
  }

  private Path baseline(int inputTokens, String spec) throws Exception {
    Path run = Files.createDirectories(dir.resolve("run"));
    Files.writeString(run.resolve("summary.json"), """
        {"schema_version":"1.3","tool":{"name":"tokenmeter","version":"x"},"started_at":"2026-11-25T10:00:00Z",
         "ended_at":"2026-11-25T10:01:00Z","target":{"url":"http://127.0.0.1:1","api":"chat","model":"llama"},
         "partial":false,"settings":{"workload":{"input_tokens":"%s","output_tokens":"uniform:20,30"}},
         "stages":[{"index":0,"label":"c=1","metrics":{},"errors":{},"histograms":{},"achieved_concurrency":0.98,
          "throughput":{"output_tokens_per_s":1,"input_tokens_per_s":1,"requests_per_s":1},
          "requests":{"completed":60,"failed":0},"steady_state":{"reached":true}}]}
        """.formatted(spec));
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      lines.add("{\"id\":" + i + ",\"stage\":0,\"phase\":\"measured\",\"ok\":true,\"scheduled_at_ms\":" + i
          + ",\"input_tokens\":" + (inputTokens + i % 5) + ",\"output_tokens\":" + (20 + i % 11) + "}");
    }
    Files.write(run.resolve("requests.jsonl"), lines);
    return run;
  }

  @Test
  void driftFromTheLedgerInWords() throws Exception {
    CommandHarness.Run r = drift("--ledger", ledger(80, 1200).toString(), "--baseline", baseline(512).toString(), "--since", "2h");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("drift: live traffic has moved away from what was benchmarked (80 requests)")
        .contains("  DRIFT input_tokens: prompts are 2.3x longer than the 512 tokens you benchmarked (median 1202 vs 514")
        .contains("  ok    output_tokens: outputs match what you benchmarked")
        .contains("  ok    model: the model mix matches")
        .contains("  ok    concurrency: concurrency is within what you benchmarked (mean 1 in flight");
  }

  @Test
  void aBaselineDrawnFromAProfileIsNamedByItsMedian() throws Exception {
    CommandHarness.Run r = drift("--ledger", ledger(80, 1200).toString(), "--baseline", baseline(512, "workload:p.json").toString(),
        "--since", "2h");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("prompts are 2.3x longer than the 514 tokens you benchmarked (median 1202 vs 514")
        .contains("your TTFT SLO was verified for 514");
  }

  @Test
  void theSameWorkloadIsNoDrift() throws Exception {
    CommandHarness.Run r = drift("--ledger", ledger(80, 512).toString(), "--baseline", baseline(512).toString(), "--since", "2h");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("drift: none; live traffic matches what was benchmarked (80 requests)");
  }

  @Test
  void aFolderWithoutSummaryAndAnEmptyWindowAreOneLineAndExit2() throws Exception {
    Path ledger = ledger(80, 512);
    long before = Files.size(ledger);
    CommandHarness.Run none = drift("--ledger", ledger.toString(), "--baseline", dir.toString());
    assertThat(none.exit()).isEqualTo(Main.EXIT_USAGE);
    assertThat(none.err().strip()).isEqualTo("tokenmeter: --baseline " + dir + ": no summary.json there; name a bench"
        + " run's folder (the --out DIR of 'tokenmeter bench', e.g. results/20261125T145627Z)");
    CommandHarness.Run empty = drift("--ledger", ledger.toString(), "--baseline", baseline(512).toString(), "--since", "1m");
    assertThat(empty.exit()).isEqualTo(Main.EXIT_USAGE);
    assertThat(empty.err()).contains("no completed request in the ledger " + ledger + " since 2026-11-25T11:59:00Z;"
        + " widen --since");
    CommandHarness.Run exportEmpty = export("--ledger", ledger.toString(), "--since", "1m", "--out", dir.resolve("p.json").toString());
    assertThat(exportEmpty.exit()).isEqualTo(Main.EXIT_USAGE);
    assertThat(dir.resolve("p.json")).doesNotExist();
    assertThat(Files.size(ledger)).isEqualTo(before);
    CommandHarness.Run noLedger = drift("--ledger", dir.resolve("nope.db").toString(), "--baseline", baseline(512).toString());
    assertThat(noLedger.exit()).isEqualTo(Main.EXIT_USAGE);
  }

  @Test
  void exportWritesTheDocumentedProfile() throws Exception {
    Path out = dir.resolve("profile.json");
    CommandHarness.Run r = export("--ledger", ledger(121, 1000).toString(), "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("wrote " + out + ": 121 requests since 2026-11-18T12:00:00Z; input median 1002 tokens");
    JsonNode p = new ObjectMapper().readTree(out.toFile());
    assertThat(p.path("format").asText()).isEqualTo("tokenmeter-workload-profile/1");
    assertThat(p.path("requests").asLong()).isEqualTo(121);
    assertThat(p.path("input_tokens").path("quantiles").get(0).asInt()).isEqualTo(1000);
    assertThat(p.path("input_tokens").path("quantiles").get(100).asInt()).isEqualTo(1004);
    // 121 requests 30 s apart from 11:00:00: 120 gaps over 3,600 s (the listing at 11:59:50 names no model)
    assertThat(p.path("arrivals").path("mean_rate_per_s").asDouble()).isEqualTo(120 / 3600.0);
    assertThat(p.path("arrivals").path("rate_per_s_by_hour_utc").get(11).asDouble()).isEqualTo(120 / 3600.0);
    assertThat(p.path("arrivals").path("rate_per_s_by_hour_utc").get(10).isNull()).isTrue();
    assertThat(p.path("models").path("llama").asDouble()).isEqualTo(1.0);
    assertThat(p.path("prefix").path("cached_token_share").asDouble()).isBetween(0.009, 0.011);
  }
}
