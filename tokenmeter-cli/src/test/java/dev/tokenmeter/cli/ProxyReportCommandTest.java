package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.request.ErrorClass;
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
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code proxy report} over a ledger written by hand: 12 requests at c=1 with 60 tok/s, 12 at c=3
 * with 20 tok/s (in flight at start 0 and 2), one failure; the files and words it writes, and one
 * line with the fix for every bad input.
 */
class ProxyReportCommandTest {
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");
  @TempDir Path dir;

  private CommandHarness.Run run(String... args) {
    return CommandHarness.run(new ProxyReportCommand(InstantSource.fixed(NOW), Map.of()), args);
  }

  static MeteredRequest request(String id, Instant at, String tenant, int inFlight, double tps, ErrorClass error) {
    double tpotNanos = error == null ? 1e9 / tps : Double.NaN;
    return MeteredRequestBuilder.chat(tenant, "llama", "vllm").id(id).startedAt(at.toEpochMilli())
        .failed(error, error == null ? 200 : 503).error(error == null ? null : "HTTP 503").finishReason("stop")
        .tokens(100, error == null ? 50 : -1, 0, 0).source(TokenCountSource.USAGE)
        .times(1000, error == null ? 80_000_000L : -1, tpotNanos, error == null ? 900_000_000L : -1).chunks(50)
        .inFlightAtStart(inFlight).cost(0.01, "USD").build();
  }

  private Path ledger() {
    Path file = dir.resolve("ledger.db");
    Ledger l = Ledgers.open(file.toString(), Map.of());
    try (LedgerWriter w = l.writer()) {
      for (int i = 0; i < 12; i++) {
        w.accept(request("a" + i, NOW.minusSeconds(600 - i), "acme", 0, 60, null));
        w.accept(request("b" + i, NOW.minusSeconds(300 - i), i % 2 == 0 ? "acme" : "beta", 2, 20, null));
      }
      w.accept(request("e", NOW.minusSeconds(100), "beta", 2, 0, ErrorClass.HTTP_5XX));
      w.accept(request("old", NOW.minusSeconds(3 * 86_400), "gamma", 0, 60, null));
    }
    return file;
  }

  @Test
  void writesReportHtmlAndProductionJsonAndSaysTheAnswer() throws Exception {
    Path out = dir.resolve("report");
    CommandHarness.Run r = run("--ledger", ledger().toString(), "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("From 2026-11-24T12:00:00Z to 2026-11-25T12:00:00Z (1 d), the proxy metered 25"
        + " requests (1 failed, 4%) from 2 tenants;");
    assertThat(r.out()).contains("Knee: per-user TPS p10 falls below 30 tokens/s between c=1 (60 tokens/s) and c=3"
        + " (20 tokens/s) in flight per upstream; production held the line up to c=1.");
    JsonNode j = new ObjectMapper().readTree(out.resolve("production.json").toFile());
    assertThat(j.at("/answer/0").asText()).isEqualTo(r.out().lines().findFirst().orElseThrow());
    assertThat(j.at("/total/requests").asLong()).isEqualTo(25);
    assertThat(j.at("/errors_by_class/http_5xx").asLong()).isEqualTo(1);
    assertThat(j.at("/knee/status").asText()).isEqualTo("crossed");
    assertThat(j.at("/knee/first_below_concurrency").asInt()).isEqualTo(3);
    assertThat(j.at("/curve/1/label").asText()).isEqualTo("c=3");
    assertThat(j.at("/curve/1/requests").asLong()).isEqualTo(13);
    assertThat(j.at("/curve/1/decode_tps/p10").asDouble()).isBetween(19.98, 20.02);
    assertThat(j.at("/tenants/0/tenant").asText()).isEqualTo("acme");
    assertThat(j.at("/tenants/0/requests").asLong()).isEqualTo(18);
    assertThat(j.at("/tenants/0/spend/USD").asDouble()).isBetween(0.1799, 0.1801);
    assertThat(j.at("/errors_over_time/bucket_seconds").asLong()).isEqualTo(900);
    String html = Files.readString(out.resolve("report.html"));
    assertThat(html).contains("<p class=\"answer\" id=\"answer\">From 2026-11-24T12:00:00Z")
        .contains("id=\"table-curve\"").contains("<th scope=\"row\">c=3</th><td>13</td><td>1</td>")
        .doesNotContain("{{");
  }

  @Test
  void aTenantAModelAWindowAndAThreshold() throws Exception {
    Path out = dir.resolve("r2");
    CommandHarness.Run r = run("--ledger", ledger().toString(), "--out", out.toString(), "--tenant", "beta", "--model", "llama",
        "--since", "2026-11-25T11:50:00Z", "--until", "1m", "--threshold", "15");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("From 2026-11-25T11:50:00Z to 2026-11-25T11:59:00Z (9 min), the proxy metered 7"
        + " requests of tenant beta for model llama (1 failed, 14%) from 1 tenant;");
    assertThat(r.out()).contains("No knee: no concurrency in flight has the 10 completed requests a p10 needs;")
        .contains("; all of them at c=3.");
    JsonNode j = new ObjectMapper().readTree(out.resolve("production.json").toFile());
    assertThat(j.at("/window/tenant").asText()).isEqualTo("beta");
    assertThat(j.at("/knee/status").asText()).isEqualTo("too_few");
    assertThat(j.at("/threshold_tps").asDouble()).isEqualTo(15);
  }

  @Test
  void badInputIsOneLineWithTheFix() {
    String ledger = ledger().toString();
    String out = dir.resolve("x").toString();
    assertOneLine(run("--ledger", dir.resolve("nope.db").toString(), "--out", out),
        "does not exist: give the file the proxy writes (its --ledger)");
    assertOneLine(run("--ledger", ledger, "--out", out, "--tenant", "acmee"),
        "--tenant 'acmee': the ledger " + ledger + " has no request of it; it knows acme, beta, gamma");
    assertOneLine(run("--ledger", ledger, "--out", out, "--model", "gpt"),
        "--model 'gpt': the ledger " + ledger + " has no request of it; it knows llama");
    assertOneLine(run("--ledger", ledger, "--out", out, "--since", "2026-11-20", "--until", "2026-11-21"),
        "no requests in the ledger " + ledger + " from 2026-11-20T00:00:00Z to 2026-11-21T00:00:00Z; widen the window");
    assertOneLine(run("--ledger", ledger, "--out", out, "--since", "1h", "--until", "2h"),
        "is not after --since");
    assertOneLine(run("--ledger", ledger, "--out", out, "--threshold", "0"), "--threshold 0.0: give the per-user TPS bar");
    assertOneLine(run("--ledger", ledger, "--out", out, "--since", "yesterday"), "--since 'yesterday' is neither");
    assertThat(Files.exists(dir.resolve("x"))).isFalse();
  }

  private static void assertOneLine(CommandHarness.Run r, String says) {
    assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err().lines().count()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains(says);
  }
}
