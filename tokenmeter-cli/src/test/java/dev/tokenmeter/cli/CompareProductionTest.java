package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerWriter;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.testkit.Cli;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compare DIR --production LEDGER}: a simulated bench run at c=1 and c=4 against a ledger
 * written by hand whose requests ran at 10 tokens/s per user (far slower than the simulated H100)
 * over the last minute, at c=1, c=4 and c=2.
 */
class CompareProductionTest {
  @TempDir Path dir;

  private Path bench() {
    Path out = dir.resolve("bench");
    Cli.simulate(out, new String[] {"--concurrency", "1,4", "--output-tokens", "16", "--duration", "6s",
        "--warmup", "0s", "--cooldown", "0s"});
    return out;
  }

  private Path ledger(int... inFlight) {
    Path file = dir.resolve("ledger.db");
    Instant now = Instant.now();
    Ledger l = Ledgers.open(file.toString(), Map.of());
    try (LedgerWriter w = l.writer()) {
      for (int i = 0; i < 120; i++) {
        int n = inFlight[i % inFlight.length];
        w.accept(ProxyReportCommandTest.request("r" + i, now.minusMillis(60_000 - 500L * i), "acme", n, 10 + i % 3, null));
      }
    }
    return file;
  }

  @Test
  void productionSlowerThanTheBenchmarkAtTheSameConcurrency() {
    Cli.Result r = Cli.run("compare", bench().toString(), "--production", ledger(0, 3, 1).toString(), "--since", "5m");
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).containsPattern("At c=1, production is \\d+% slower than the benchmark \\(per-user decode TPS"
            + " p50 10 vs \\d+ tokens/s\\), significant \\(p<0.001\\); the p-value rests on A \\d+, B \\d+ one-second blocks")
        .contains("At c=4, production is ").contains("Stage c=4 (A #1, B #2)")
        .contains("Production concurrencies the benchmark did not run (not compared): c=2")
        .contains("B (production): ledger " + dir.resolve("ledger.db") + ", ");
  }

  @Test
  void badInputIsOneLineWithTheFix() {
    Path bench = bench();
    Cli.Result none = Cli.run("compare", bench.toString(), "--production", ledger(2).toString(), "--since", "5m");
    assertThat(none.exitCode()).isEqualTo(2);
    assertThat(none.err()).contains("no concurrency in common: the benchmark ran c=1, c=4, production had c=3 in flight;"
        + " compare a closed-loop (--concurrency) bench run at the loads production sees");
    Cli.Result two = Cli.run("compare", bench.toString(), bench.toString(), "--production", "x.db");
    assertThat(two.exitCode()).isEqualTo(2);
    assertThat(two.err()).contains("--production compares one bench run with production; got 2 folders");
    Cli.Result html = Cli.run("compare", bench.toString(), "--production", "x.db", "--html", "c.html");
    assertThat(html.err()).contains("are not written for a production comparison yet");
    Cli.Result missing = Cli.run("compare", bench.toString(), "--production", dir.resolve("nope.db").toString());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("does not exist: give the file the proxy writes").doesNotContain("Exception");
    Cli.Result one = Cli.run("compare", bench.toString());
    assertThat(one.err()).contains("compare needs two results folders (or one and --production LEDGER); got 1");
  }
}
