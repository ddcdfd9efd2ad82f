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
