package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.StagePlanJson;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.CliProcess;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a real {@code tokenmeter bench} process mid-stage: requests.jsonl holds every
 * request finished up to a second before the kill, each complete line whole (only a last line may
 * be cut short), and {@code tokenmeter report --recover} rebuilds summary.json and report.html from
 * it, marked as recovered, with the dead stage's measured requests counted exactly once.
 */
@Timeout(90)
class KillNineIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** requests.jsonl's flush bound (1 s, RequestsJsonlWriter) plus 0.5 s for the client's read and a busy machine. */
  private static final long FLUSH_BOUND_MILLIS = 1_500;

  @TempDir Path tmp;

  @Test
  void killedMidStageLosesAtMostTheLastSecondAndRecovers() throws Exception {
    Path out = tmp.resolve("killed");
    int serverEndedBeforeBound;
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 5));
        CliProcess p = CliProcess.start("bench", "--url", sim.baseUrl(), "--concurrency", "4",
            "--duration", "60s", "--warmup", "1s", "--cooldown", "0s", "--input-tokens", "16",
            "--output-tokens", "16", "--extra-body", "{\"ignore_eos\":true}", "--out", out.toString(), "-q")) {
      assertThat(p.awaitErrLine(l -> l.startsWith("Stage 1/1"), Duration.ofSeconds(40)))
          .as("stage start; stderr: %s", p.err()).isTrue();
      // ~100 ms a request (20 ms + 15 x 5 ms): after 3 s each of the 4 users finished ~30.
      Thread.sleep(3_000);
      serverEndedBeforeBound = sim.records().size();
      Thread.sleep(FLUSH_BOUND_MILLIS);
      p.signal("KILL");
      assertThat(p.waitFor(Duration.ofSeconds(20))).isEqualTo(128 + 9);
    }
    assertThat(out.resolve(StagePlanJson.FILE_NAME)).as("the stage in progress").isRegularFile();
    List<JsonNode> lines = completeLines(out.resolve("requests.jsonl"));
    assertThat(lines.size()).as("requests.jsonl holds what ended %d ms before the kill", FLUSH_BOUND_MILLIS)
        .isGreaterThanOrEqualTo(serverEndedBeforeBound);
    assertThat(lines).extracting(l -> l.get("id").asLong()).doesNotHaveDuplicates();
    JsonNode before = JSON.readTree(out.resolve("summary.json").toFile());
    assertThat(before.get("partial_detail").asText()).contains("run in progress (0 of 1 stages done)");
    assertThat(before.get("stages")).isEmpty();

    Cli.Result r = Cli.run("report", "--recover", out.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).contains("stage 1 rebuilt");
    JsonNode after = JSON.readTree(out.resolve("summary.json").toFile());
    assertThat(after.get("partial_reason").asText()).isEqualTo("recovered");
    assertThat(after.at("/recovered/rebuilt_stage").asInt()).isZero();
    long okMeasured = lines.stream()
        .filter(l -> l.get("ok").asBoolean() && l.get("phase").asText().equals("measured")).count();
    long okWarmup = lines.stream()
        .filter(l -> l.get("ok").asBoolean() && l.get("phase").asText().equals("warmup")).count();
    assertThat(okMeasured).isPositive();
    assertThat(after.at("/stages/0/requests/completed").asLong()).isEqualTo(okMeasured);
    assertThat(after.at("/stages/0/requests/by_phase/warmup/completed").asLong()).isEqualTo(okWarmup);
    assertThat(after.at("/stages/0/requests/failed").asLong()).isZero();
    assertThat(after.at("/stages/0/metrics/ttft_ms/count").asLong()).isEqualTo(okMeasured);
    // The simulator's TTFT is 20 ms; the client sees it plus loopback and a busy machine's delays.
    assertThat(after.at("/stages/0/metrics/ttft_ms/p50").asDouble()).isBetween(19.0, 200.0);
    String html = Files.readString(out.resolve("report.html"), StandardCharsets.UTF_8);
    assertThat(html).contains("Partial run (recovered)").contains("Recovered after the process died");

    Cli.Result again = Cli.run("report", "--recover", out.toString());
    assertThat(again.exitCode()).as("a recovered folder recovers again, same result").isZero();
    assertThat(JSON.readTree(out.resolve("summary.json").toFile()).get("stages").size()).isEqualTo(1);
  }

  /** Every line that ends with a newline parses; a last line without one is the kill's cut. */
  private static List<JsonNode> completeLines(Path file) throws Exception {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    int lastNewline = text.lastIndexOf('\n');
    List<JsonNode> lines = new ArrayList<>();
    for (String line : text.substring(0, lastNewline + 1).split("\n")) {
      if (!line.isEmpty()) {
        lines.add(JSON.readTree(line));
      }
    }
    return lines;
  }
}
