package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

class ProxyUsageCommandTest {
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");
  @TempDir Path dir;

  private CommandHarness.Run run(String... args) {
    return CommandHarness.run(new ProxyUsageCommand(InstantSource.fixed(NOW), Map.of()), args);
  }

  private Path ledger() {
    Path file = dir.resolve("ledger.db");
    Ledger l = Ledgers.open(file.toString(), Map.of());
    try (LedgerWriter w = l.writer()) {
      w.accept(request("acme", NOW.minusSeconds(3600), 40_000_000L, 20e6));
      w.accept(request("acme", NOW.minusSeconds(7200), 60_000_000L, 25e6));
      w.accept(request("beta", NOW.minusSeconds(60), 10_000_000L, 10e6));
      w.accept(request("acme", NOW.minusSeconds(3 * 86_400), 1, 1));
    }
    return file;
  }

  private static MeteredRequest request(String tenant, Instant at, long ttftNanos, double tpotNanos) {
    return MeteredRequestBuilder.chat(tenant, "llama", "vllm").id("r" + at.toEpochMilli()).startedAt(at.toEpochMilli())
        .tokens(100, 50, 0, 0).times(1000, ttftNanos, tpotNanos, ttftNanos + 1_000_000_000L).inFlightAtStart(1)
        .cost(0.01, "USD").build();
  }

  @Test
  void aTableOfTheLastDayPerTenantByDefault() {
    CommandHarness.Run r = run("--ledger", ledger().toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("Usage since 2026-11-24T12:00:00Z, by tenant\n");
    assertThat(r.out()).contains("\nacme ").contains("\nbeta ").contains("\ntotal ");
    assertThat(r.out().lines().filter(l -> l.startsWith("acme")).findFirst().orElseThrow())
        .startsWith("acme           2       0     200      100          0       0         40.0         60.0");
  }

  @Test
  void jsonForOneTenantOverAWeekByDay() throws Exception {
    CommandHarness.Run r = run("--ledger", ledger().toString(), "--since", "7d", "--tenant", "acme", "--by", "day", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertThat(j.get("tenant").asText()).isEqualTo("acme");
    assertThat(j.get("rows")).hasSize(2);
    assertThat(j.get("rows").get(0).get("key").asText()).isEqualTo("2026-11-22");
    assertThat(j.get("total").get("requests").asLong()).isEqualTo(3);
  }

  @Test
  void csvByModel() {
    CommandHarness.Run r = run("--ledger", ledger().toString(), "--since", "2026-11-25", "--by", "model", "--csv");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out().lines().toList()).hasSize(3).first().asString().startsWith("model,requests,");
    assertThat(r.out()).contains("\nllama,3,0,");
  }

  @Test
  void badInputGetsOneLine() {
    Path file = ledger();
    CommandHarness.Run missing = run("--ledger", dir.resolve("missing.db").toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).startsWith("tokenmeter: ledger " + dir.resolve("missing.db") + " does not exist").hasLineCount(1);

    CommandHarness.Run since = run("--ledger", file.toString(), "--since", "yesterday");
    assertThat(since.exit()).isEqualTo(2);
    assertThat(since.err()).isEqualTo(
        "tokenmeter: --since 'yesterday' is neither a duration nor a time; use e.g. 30m, 24h, 7d, 2026-11-24 or 2026-11-24T08:00:00Z"
            + System.lineSeparator());

    CommandHarness.Run by = run("--ledger", file.toString(), "--by", "region");
    assertThat(by.exit()).isEqualTo(2);
    assertThat(by.err()).contains("--by 'region' is not a grouping").hasLineCount(1);
  }

  @Test
  void aFileThatIsNotALedger() throws Exception {
    Path notes = Files.writeString(dir.resolve("notes.db"), "not a database ".repeat(100));
    CommandHarness.Run r = run("--ledger", notes.toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).startsWith("tokenmeter: " + notes + " is not a tokenmeter ledger").hasLineCount(1);
  }

  @Test
  void jsonAndCsvExcludeEachOther() {
    CommandHarness.Run r = run("--ledger", "x.db", "--json", "--csv");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("mutually exclusive");
  }

  @Test
  void sinceForms() {
    assertThat(ProxyUsageCommand.parseSince("24h", NOW)).isEqualTo(Instant.parse("2026-11-24T12:00:00Z"));
    assertThat(ProxyUsageCommand.parseSince("1m30s", NOW)).isEqualTo(Instant.parse("2026-11-25T11:58:30Z"));
    assertThat(ProxyUsageCommand.parseSince("2d", NOW)).isEqualTo(Instant.parse("2026-11-23T12:00:00Z"));
    assertThat(ProxyUsageCommand.parseSince("2026-11-20", NOW)).isEqualTo(Instant.parse("2026-11-20T00:00:00Z"));
    assertThat(ProxyUsageCommand.parseSince("2026-11-20T08:30:00Z", NOW)).isEqualTo(Instant.parse("2026-11-20T08:30:00Z"));
    assertThatThrownBy(() -> ProxyUsageCommand.parseSince("2026-13-45", NOW)).isInstanceOf(UsageException.class);
  }
}
