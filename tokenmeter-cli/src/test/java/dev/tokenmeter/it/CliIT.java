package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.SummaryJsonReader;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line as users meet it, through {@code Main.run}: exit codes (0 ok, 1 run failed, 2
 * usage), one-line messages without stack traces, and the results folder of real and partial runs.
 */
@Timeout(60)
class CliIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  private static void assertNoStackTrace(Cli.Result r) {
    assertThat(r.err()).as(r.both()).doesNotContain("\tat ").doesNotContain("Exception");
    assertThat(r.out()).as(r.both()).doesNotContain("\tat ");
  }

  /** The usage error: exit 2, a message first on stderr naming the problem, no stack trace. */
  private static void assertUsageError(Cli.Result r, String mention) {
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    List<String> lines = r.err().lines().toList();
    assertThat(lines).as(r.both()).isNotEmpty();
    assertThat(lines.get(0)).as(r.both()).startsWith("tokenmeter: ").contains(mention);
    // One line of message, at most one more pointing at --help.
    assertThat(lines).as(r.both()).hasSizeLessThanOrEqualTo(2);
    assertNoStackTrace(r);
  }

  private String closedUrl() {
    return "http://127.0.0.1:" + SimFixture.closedPort();
  }

  @Test
  void unknownFlagIsAUsageError() {
    assertUsageError(Cli.run("bench", "--bogus-flag"), "--bogus-flag");
  }

  @Test
  void concurrencyZeroIsAUsageError() {
    assertUsageError(Cli.run("bench", "--url", closedUrl(), "--concurrency", "0"), "--concurrency");
  }

  @Test
  void unknownArrivalIsAUsageError() {
    assertUsageError(
        Cli.run("bench", "--url", closedUrl(), "--rate", "5", "--arrival", "lumpy"), "lumpy");
  }

  @Test
  void badExtraBodyIsAUsageErrorFoundBeforeContactingTheServer() {
    Path out = tmp.resolve("never");
    // A closed port: if the JSON were checked only after the pre-flight, this would exit 1.
    Cli.Result r =
        Cli.run(
            "bench",
            "--url",
            closedUrl(),
            "--concurrency",
            "1",
            "--requests",
            "1",
            "--extra-body",
            "{\"ignore_eos\":",
            "--out",
            out.toString());
    assertUsageError(r, "--extra-body");
    assertThat(out).doesNotExist();
  }

  @Test
  void unreachableServerFailsWithCannotConnect() {
    Path out = tmp.resolve("unreachable");
    Cli.Result r =
        Cli.run(
            "bench",
            "--url",
            closedUrl(),
            "--concurrency",
            "1",
            "--requests",
            "1",
            "--out",
            out.toString());
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2); // a flag to fix (--url), like any bad value
    assertThat(r.err()).as(r.both()).startsWith("tokenmeter: cannot connect");
    assertThat(r.err().lines().count()).isEqualTo(1);
    assertNoStackTrace(r);
  }

  @Test
  void emptyPromptFileIsAUsageErrorNamingTheFile() throws IOException {
    Path prompts = Files.createFile(tmp.resolve("empty-prompts.jsonl"));
    Cli.Result r =
        Cli.run(
            "bench", "--url", closedUrl(), "--concurrency", "1", "--prompts", prompts.toString());
    assertUsageError(r, "empty-prompts.jsonl");
  }

  @ParameterizedTest(name = "--event-loops {0}")
  @CsvSource({"auto, 1", "2, 2"})
  void aRealRunWritesSummaryAndOneLinePerRequest(String loops, int expectedLoops) throws IOException {
    Path out = tmp.resolve("run-" + loops);
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 2))) {
      r =
          Cli.run(
              "bench",
              "--url",
              sim.baseUrl(),
              "--concurrency",
              "2",
              "--requests",
              "5",
              "--warmup",
              "0s",
              "--cooldown",
              "0s",
              "--input-tokens",
              "16",
              "--output-tokens",
              "4",
              "--extra-body",
              "{\"ignore_eos\":true}",
              "--event-loops",
              loops,
              "--out",
              out.toString(),
              "-q");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertNoStackTrace(r);
    assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.resolve("summary.json").toFile())
        .at("/stages/0/client_health/event_loops").asInt()).isEqualTo(expectedLoops);
    // 2 users, 5 measured, no warm-up or cool-down: exactly 5 requests were sent.
    List<JsonNode> lines = jsonl(out.resolve("requests.jsonl"));
    assertThat(lines).hasSize(5);
    assertThat(lines)
        .allSatisfy(
            l -> {
              assertThat(l.get("ok").asBoolean()).isTrue();
              assertThat(l.get("phase").asText()).isEqualTo("measured");
              assertThat(l.get("output_tokens").asInt()).isEqualTo(4);
            });
    assertThat(lines.stream().map(l -> l.get("id").asLong()))
        .containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L);
    SavedSummary s = SummaryJsonReader.read(out.resolve("summary.json"));
    assertThat(s.partial()).isFalse();
    assertThat(s.model()).isEqualTo("tokenmeter-sim"); // found by the pre-flight's /v1/models
    assertThat(s.stages()).hasSize(1);
    SavedSummary.Stage st = s.stages().get(0);
    assertThat(st.completed()).isEqualTo(5);
    assertThat(st.failed()).isZero();
    assertThat(st.metrics().get("ttft_ms").count()).isEqualTo(5);
    assertThat(st.metrics().get("output_tokens").mean()).isEqualTo(4.0);
  }

  @Test
  void aServerDyingMidRunEndsWithExit1AndAPartialSummary() throws Exception {
    Path out = tmp.resolve("dies");
    SimFixture sim = SimFixture.start(SimFixture.config(20, 10));
    CountDownLatch closed = new CountDownLatch(1);
    Thread killer =
        new Thread(
            () -> {
              try {
                Thread.sleep(250); // into stage 2: 2 of its 6 requests (110 ms each) are done
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              sim.close();
              closed.countDown();
            });
    Cli.Result r;
    try {
      r =
          Cli.run(
              line -> {
                if (line.startsWith("Stage 2/3")) {
                  killer.start();
                }
              },
              "bench",
              "--url",
              sim.baseUrl(),
              "--concurrency",
              "1,1,1",
              "--requests",
              "6",
              "--warmup",
              "0s",
              "--cooldown",
              "0s",
              "--input-tokens",
              "16",
              "--output-tokens",
              "10",
              "--extra-body",
              "{\"ignore_eos\":true}",
              "--out",
              out.toString(),
              "-q");
    } finally {
      assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(r.exitCode()).as(r.both()).isEqualTo(1);
    assertNoStackTrace(r);
    assertThat(r.err()).as(r.both()).contains("tokenmeter: every request of stage 3 failed");

    SavedSummary s = SummaryJsonReader.read(out.resolve("summary.json"));
    assertThat(s.partial()).isTrue();
    assertThat(s.partialReason()).isEqualTo("error");
    assertThat(s.stages()).hasSize(3);
    assertThat(s.stages().get(0).completed()).isEqualTo(6);
    SavedSummary.Stage second = s.stages().get(1);
    assertThat(second.completed()).isBetween(1L, 5L);
    assertThat(second.completed() + second.failed()).isEqualTo(6);
    // Cut mid-stream (truncated) and then refused (connect): nothing else.
    assertThat(Set.copyOf(second.errors().keySet()))
        .isSubsetOf("truncated", "connect")
        .contains("connect");
    assertThat(s.stages().get(2).errors()).isEqualTo(Map.of("connect", 6L));
    assertThat(jsonl(out.resolve("requests.jsonl"))).hasSize(18);
  }

  private static List<JsonNode> jsonl(Path file) throws IOException {
    List<JsonNode> nodes = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      nodes.add(JSON.readTree(line));
    }
    return nodes;
  }
}
