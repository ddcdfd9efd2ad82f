package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.workload.WorkloadProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code simulate --workload PROFILE}: lengths from the profile, its rate when no load is given; a bad profile exits 2. */
class SimulateWorkloadTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aProfileGivesTheLengthsAndTheRate(@TempDir Path dir) throws Exception {
    WorkloadProfile.Builder b = new WorkloadProfile.Builder();
    for (int i = 0; i < 21; i++) {
      b.add(500L * i, "m", true, 200 + 10 * i, 8 + i, -1); // two a second; inputs 200..400, outputs 8..28
    }
    Path profile = Files.writeString(dir.resolve("profile.json"), b.build(Instant.EPOCH, Instant.EPOCH).toJson());
    Path out = dir.resolve("run");
    Cli.Result r = Cli.run("simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--workload", profile.toString(),
        "--requests", "200", "--warmup", "0s", "--cooldown", "0s", "--out", out.toString(), "-q");
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err()).contains("tokenmeter: --rate 2.000/s (poisson arrivals) from " + profile);
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    assertThat(summary.at("/stages/0/load/rate_per_s").asDouble()).isEqualTo(2.0);
    assertThat(summary.at("/settings/workload/workload_profile").asText()).isEqualTo(profile.toString());
    int below300 = 0;
    int n = 0;
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode j = JSON.readTree(line);
      int in = j.get("input_tokens").asInt();
      int o = j.get("output_tokens").asInt();
      assertThat(in).isBetween(200, 400);
      assertThat(o).isBetween(8, 28);
      below300 += in < 300 ? 1 : 0;
      n++;
    }
    assertThat(below300 / (double) n).isBetween(0.35, 0.65); // the median of 200..400 is 300
  }

  /**
   * A profile of conversations (every key 4 turns; 2 s of thought between an answer and the next
   * question; each turn adds 100 tokens to a prompt that resends the history) makes sessions:
   * turns and think time as observed, new messages of the added tokens, not of whole prompts.
   */
  @Test
  void aProfileWithConversationsRunsThemAsSessionsUnlessTurnsAreGiven(@TempDir Path dir) throws Exception {
    WorkloadProfile.Builder b = new WorkloadProfile.Builder();
    for (int conv = 0; conv < 20; conv++) {
      long at = 1_000L * conv;
      int prompt = 100;
      for (int turn = 0; turn < 4; turn++) {
        b.add(at, "m", true, prompt, 20, -1, "c" + conv, at + 1_000);
        at += 3_000; // 1 s answer + 2 s thought
        prompt += 20 + 100;
      }
    }
    Path profile = Files.writeString(dir.resolve("profile.json"), b.build(Instant.EPOCH, Instant.EPOCH).toJson());
    Path out = dir.resolve("run");
    Cli.Result r = Cli.run("simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--workload", profile.toString(),
        "--concurrency", "4", "--duration", "60s", "--warmup", "0s", "--cooldown", "0s", "--out", out.toString(), "-q");
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err()).contains("tokenmeter: --turns as observed (mean 4.00, max 4) and --think-time as observed"
        + " (observed, mean 2s) from " + profile + ": its 20 conversations");
    JsonNode sessions = JSON.readTree(out.resolve("summary.json").toFile()).at("/stages/0/sessions");
    assertThat(sessions.at("/turns/max").asDouble()).isEqualTo(4.0);
    JsonNode byTurn = sessions.get("by_turn");
    assertThat(byTurn).hasSize(4);
    // turn k's prompt: the history (k - 1 turns of 100 added + 20 answered) + 100 new, framing aside
    for (int k = 0; k < 4; k++) {
      assertThat(byTurn.get(k).at("/prompt_tokens/mean").asDouble()).as("turn %d", k + 1)
          .isBetween(100.0 + 120 * k, 100.0 + 120 * k + 40);
    }

    Cli.Result single = Cli.run("simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--workload",
        profile.toString(), "--turns", "1", "--concurrency", "4", "--requests", "20", "--warmup", "0s", "--cooldown",
        "0s", "--out", dir.resolve("single").toString(), "-q");
    assertThat(single.exitCode()).as(single.both()).isZero();
    assertThat(single.err()).doesNotContain("as observed");
    assertThat(JSON.readTree(dir.resolve("single/summary.json").toFile()).at("/stages/0/sessions").isMissingNode()
        || JSON.readTree(dir.resolve("single/summary.json").toFile()).at("/stages/0/sessions").isNull()).isTrue();
  }

  @Test
  void aMalformedProfileIsOneLineAndExit2(@TempDir Path dir) throws Exception {
    Path bad = Files.writeString(dir.resolve("bad.json"), "{\"format\":\"tokenmeter-workload-profile/1\"}");
    Cli.Result r = Cli.run("simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--workload", bad.toString(),
        "--concurrency", "1", "--requests", "5", "--out", dir.resolve("run").toString(), "-q");
    assertThat(r.exitCode()).isEqualTo(Main.EXIT_USAGE);
    assertThat(r.err()).contains("--workload " + bad + ": window.since '' is not a UTC time")
        .contains("write one with 'tokenmeter proxy export-workload --out FILE'")
        .doesNotContain("Exception").doesNotContain("\tat ");
  }
}
