package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.cli.Main;
import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.SummaryJsonReader;
import dev.tokenmeter.testkit.CliProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C on the packaged jar: the run stops, exits 130 (the JVM's 128 + SIGINT, which is also
 * {@link Main#EXIT_INTERRUPTED}), and leaves a partial summary.json marked interrupted plus the
 * requests that ran.
 */
@Timeout(60)
class CtrlCIT {
  private static final Path JAR = Path.of("tokenmeter-cli", "target", "tokenmeter.jar");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @ParameterizedTest(name = "--event-loops {0}")
  @ValueSource(strings = {"auto", "2"})
  void sigintStopsTheRunWritesPartialResultsAndExits130(String loops) throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(JAR), "needs the packaged jar (mvn verify)");
    Path out = tmp.resolve("interrupted-" + loops);
    try (CliProcess p = CliProcess.startJar(JAR, "demo", "--concurrency", "4", "--duration", "20s", "--warmup", "0s",
        "--output-tokens", "16", "--event-loops", loops, "--out", out.toString())) {
      assertThat(p.awaitErrLine(l -> l.startsWith("Stage 1/1"), Duration.ofSeconds(30)))
          .as("stage start; stderr: %s", p.err())
          .isTrue();
      // With the engine defaults (Llama 3.1 8B, one H100) a request is a ~31 ms prefill of 4 x 256
      // tokens + 15 decode steps of ~10.7 ms, ~190 ms: after 2 s each user has finished several.
      Thread.sleep(2_000);
      p.signal("INT");
      assertThat(p.waitFor(Duration.ofSeconds(20))).as("stderr: %s", p.err()).isEqualTo(Main.EXIT_INTERRUPTED);
      assertThat(p.err()).doesNotContain("\tat ").doesNotContain("Exception")
          .contains("tokenmeter: interrupted: stopped by the user during stage 1; partial results were written")
          .doesNotContain("NaN");
    }
    SavedSummary s = SummaryJsonReader.read(out.resolve("summary.json"));
    assertThat(s.partial()).isTrue();
    assertThat(s.partialReason()).isEqualTo("interrupted");
    assertThat(s.stages()).hasSize(1);
    assertThat(s.stages().get(0).completed()).isPositive();
    // The 4 requests Ctrl-C cancelled are the tool's own doing, not the server's failures.
    assertThat(s.stages().get(0).failed()).isZero();
    assertThat(s.stages().get(0).errors()).isEmpty();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      lines.add(JSON.readTree(line));
    }
    long ok = lines.stream().filter(l -> l.get("ok").asBoolean()).count();
    long cancelled =
        lines.stream().filter(l -> l.path("error_class").asText().equals("cancelled")).count();
    assertThat(ok).isEqualTo(s.stages().get(0).completed());
    // A closed loop always has its 4 users in flight: exactly those 4 were cancelled.
    assertThat(cancelled).isEqualTo(4);
    assertThat(lines).hasSize((int) (ok + cancelled));
  }
}
