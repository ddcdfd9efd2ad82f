package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.SummaryJsonReader;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A first run's mistakes against the simulator over real sockets (issue 43): a wrong {@code
 * --model} stops the stage after its first requests with the server's own words and the fix, keeps
 * the partial results and exits 1; {@code --fail-fast 0} runs on; the full endpoint as {@code
 * --url} is refused before any request; {@code --requests N} says before the run that the warm-up
 * and cool-down send more, and {@code --max-requests} bounds what is sent.
 */
@Timeout(60)
class FirstRunIT {
  @TempDir Path tmp;
  private SimFixture sim;

  @BeforeEach
  void start() {
    sim = SimFixture.start(SimFixture.config(5, 1));
  }

  @AfterEach
  void stop() {
    sim.close();
  }

  private Cli.Result bench(Path out, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("bench", "--url", sim.baseUrl(), "--concurrency", "4",
        "--input-tokens", "16", "--output-tokens", "8", "-q", "--out", out.toString()));
    args.addAll(List.of(more));
    return Cli.run(args.toArray(String[]::new));
  }

  @Test
  void aWrongModelStopsTheStageAfterItsFirstRequestsAndSaysWhy() throws IOException {
    Path out = tmp.resolve("wrong-model");
    long t0 = System.nanoTime();
    // 10 s of warm-up and a 60 s window: at about 1 ms a request, tens of thousands of 404s before.
    Cli.Result r = bench(out, "--model", "gpt-4o-mini", "--warmup", "10s", "--duration", "60s", "--cooldown", "0s");
    double seconds = (System.nanoTime() - t0) / 1e9;

    assertThat(r.exitCode()).as(r.both()).isEqualTo(1);
    assertThat(seconds).as("stopped early").isLessThan(10);
    List<String> lines = r.err().lines().filter(l -> l.startsWith("tokenmeter: ")).toList();
    assertThat(lines.get(lines.size() - 1)).as(r.both()).isEqualTo("tokenmeter: stage 1 stopped: its first 10 requests"
        + " all failed the same way; the server says: \"The model `gpt-4o-mini` does not exist.\" (HTTP 404); it"
        + " lists: tokenmeter-sim. Try --model tokenmeter-sim. Partial results were written; --fail-fast 0 keeps a"
        + " stage going whatever fails.");
    assertThat(r.both()).doesNotContain("\tat ").doesNotContain("NaN");

    long jsonl = Files.readAllLines(out.resolve("requests.jsonl")).size();
    assertThat(jsonl).as("the first 10 and those in flight, cancelled").isBetween(10L, 20L);
    SavedSummary s = SummaryJsonReader.read(out.resolve("summary.json"));
    assertThat(s.partial()).isTrue();
    assertThat(s.partialReason()).isEqualTo("error");
    assertThat(s.partialDetail()).contains("it lists: tokenmeter-sim");
    assertThat(s.stages()).hasSize(1);
    String page = Files.readString(out.resolve("report.html"));
    assertThat(page).contains("<title>tokenmeter report: gpt-4o-mini at " + sim.baseUrl() + " (failed)</title>")
        .contains("The run failed: no request completed.");
  }

  @Test
  void failFastZeroRunsTheStageToItsEndAndNamesTheFirstFailure() throws IOException {
    Path out = tmp.resolve("run-on");
    Cli.Result r = bench(out, "--model", "gpt-4o-mini", "--warmup", "0s", "--duration", "1s", "--cooldown", "0s", "--fail-fast", "0");

    assertThat(r.exitCode()).as(r.both()).isEqualTo(1);
    assertThat(r.err()).as(r.both()).containsPattern("tokenmeter: every request of stage 1 failed \\(http_4xx \\d+\\);"
        + " the first: the server says: \"The model `gpt-4o-mini` does not exist.\" \\(HTTP 404\\); it lists:"
        + " tokenmeter-sim. Try --model tokenmeter-sim. Partial results were written.");
    assertThat(Files.readAllLines(out.resolve("requests.jsonl")).size()).as("the whole second").isGreaterThan(20);
  }

  @Test
  void theFullEndpointAsUrlIsRefusedBeforeAnyRequest() {
    Path out = tmp.resolve("never");
    Cli.Result r = Cli.run("bench", "--url", sim.baseUrl() + "/v1/chat/completions", "--concurrency", "1",
        "--out", out.toString());
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err().lines().toList()).as(r.both()).containsExactly("tokenmeter: --url " + sim.baseUrl()
        + "/v1/chat/completions ends with an API's route, which tokenmeter adds itself (requests would go to"
        + " /v1/chat/completions/v1/chat/completions): give the server's root, --url " + sim.baseUrl());
    assertThat(out).doesNotExist();
  }

  @Test
  void requestsSaysWhatElseIsSentAndMaxRequestsBoundsIt() throws IOException {
    Path free = tmp.resolve("free");
    Cli.Result r = bench(free, "--requests", "6", "--warmup", "1s", "--cooldown", "1s");
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err()).as(r.both()).contains("Stage 1/1: c=4, warm-up 1s, 6 measured requests, cool-down 1s; the warm-up"
        + " and cool-down send more requests, unmeasured (--max-requests M caps all)");
    assertThat(Files.readAllLines(free.resolve("requests.jsonl")).size()).isGreaterThan(8);

    Path capped = tmp.resolve("capped");
    r = bench(capped, "--requests", "6", "--max-requests", "8", "--warmup", "1s", "--cooldown", "1s");
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err()).as(r.both()).contains("Stage 1/1: c=4, warm-up 1s, 6 measured requests, cool-down 1s; at most 8"
        + " requests sent (2 in the warm-up at most)");
    assertThat(Files.readAllLines(capped.resolve("requests.jsonl"))).hasSize(8);
    assertThat(SummaryJsonReader.read(capped.resolve("summary.json")).stages().get(0).completed()).isEqualTo(6);
    // command_line once as given: it read "tokenmeter", "bench", "bench", ... (issue 43)
    com.fasterxml.jackson.databind.JsonNode line = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(capped.resolve("summary.json").toFile()).get("command_line");
    assertThat(line.get(0).asText()).isEqualTo("tokenmeter");
    assertThat(line.get(1).asText()).isEqualTo("bench");
    assertThat(line.get(2).asText()).isEqualTo("--url");
    assertThat(line.get(line.size() - 1).asText()).isEqualTo("1s");

    r = bench(tmp.resolve("never"), "--requests", "6", "--max-requests", "5");
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err()).as(r.both()).startsWith("tokenmeter: --max-requests 5 is below --requests 6");
  }
}
