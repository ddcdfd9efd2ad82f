package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.workload.LengthSpec;
import dev.tokenmeter.workload.WorkloadException;
import dev.tokenmeter.workload.WorkloadProfile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --workload PROFILE}: lengths from the profile unless given, the rate when no load is. */
class WorkloadOptionsProfileTest {
  @TempDir Path dir;

  private Path profile(int requests) throws Exception {
    WorkloadProfile.Builder b = new WorkloadProfile.Builder();
    for (int i = 0; i < requests; i++) {
      b.add(1_000L * i, "m", true, 100 + i, 10 + i, -1); // one a second
    }
    Path f = dir.resolve("profile.json");
    Files.writeString(f, b.build(Instant.EPOCH, Instant.EPOCH.plusSeconds(requests)).toJson());
    return f;
  }

  @Test
  void lengthsComeFromTheProfileUnlessGiven() throws Exception {
    WorkloadOptions w = new WorkloadOptions();
    w.workloadFile = profile(11);
    w.outputTokens = "64";
    w.validate();
    assertThat(w.describe()).containsEntry("input_tokens", "workload:" + w.workloadFile)
        .containsEntry("output_tokens", "64").containsEntry("workload_profile", w.workloadFile.toString());
    assertThat(w.profile().input()).isInstanceOf(LengthSpec.Empirical.class);
    assertThat(w.profile().input().quantiles()).startsWith(100).endsWith(110);
  }

  @Test
  void theRateIsTheProfilesWhenNoLoadIsGiven() throws Exception {
    WorkloadOptions w = new WorkloadOptions();
    w.workloadFile = profile(11);
    LoadOptions load = new LoadOptions();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    w.rateFromProfile(load, new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(load.rate).containsExactly(1.0); // 11 requests one second apart
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("tokenmeter: --rate 1.000/s (poisson arrivals) from ");
    LoadOptions closed = new LoadOptions();
    closed.concurrency = List.of(4);
    w.rateFromProfile(closed, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(closed.rate).isEmpty();
  }

  @Test
  void aProfileWithoutRateOrAMalformedOneIsAUsageError() throws Exception {
    WorkloadOptions w = new WorkloadOptions();
    w.workloadFile = profile(1);
    assertThatThrownBy(() -> w.rateFromProfile(new LoadOptions(), System.err)).isInstanceOf(UsageException.class)
        .hasMessageContaining("has no arrival rate (fewer than 2 requests): give --rate R or --concurrency N");
    WorkloadOptions bad = new WorkloadOptions();
    bad.workloadFile = Files.writeString(dir.resolve("bad.json"), "[]");
    assertThatThrownBy(bad::validate).isInstanceOf(WorkloadException.class).hasMessageContaining("not a workload profile");
  }
}
