package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.testkit.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** tokenmeter report DIR: re-renders report.html; a folder without summary.json is a usage error. */
class ReportCommandTest {
  @TempDir Path tmp;

  @Test
  void simulateWritesTheReportAndReportRerendersIt() throws Exception {
    Path dir = tmp.resolve("run");
    Cli.Result sim = Cli.run("simulate", "--concurrency", "1,4", "--duration", "5s", "--warmup", "1s",
        "--cooldown", "1s", "--output-tokens", "64", "--input-tokens", "128", "--out", dir.toString());
    assertThat(sim.exitCode()).as(sim.both()).isZero();
    Path page = dir.resolve("report.html");
    assertThat(page).exists();
    Files.delete(page);

    Cli.Result r = Cli.run("report", dir.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).contains("Report: " + page);
    assertThat(Files.readString(page)).contains("Simulated, not measured.").contains("id=\"tm-data\"");

    Path other = tmp.resolve("elsewhere.html");
    assertThat(Cli.run("report", dir.toString(), "--out", other.toString()).exitCode()).isZero();
    assertThat(other).exists();
  }

  @Test
  void folderWithoutSummaryIsAUsageError() {
    Cli.Result r = Cli.run("report", tmp.toString());
    assertThat(r.exitCode()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err().lines().toList()).hasSize(1);
    assertThat(r.err()).startsWith("tokenmeter: " + tmp + " has no summary.json");
  }

  @Test
  void unreadableSummaryFailsWithOneLine() throws Exception {
    Files.writeString(tmp.resolve("summary.json"), "{\"schema_version\": \"9.0\"}");
    Cli.Result r = Cli.run("report", tmp.toString());
    assertThat(r.exitCode()).isEqualTo(Main.EXIT_FAILED);
    assertThat(r.err()).startsWith("tokenmeter: could not render ").contains("unsupported summary.json schema version 9.0");
  }
}
