package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Aggregate output TPS counts tokens by arrival inside the window, and the server, counting by its
 * own write times, agrees.
 */
@Timeout(60)
class ThroughputTruthIT {
  private static final long MS = 1_000_000L;
  private static final int USERS = 8;

  @BeforeAll
  static void warmUp() {
    StageKit.warmUpOnce();
  }

  @Test
  void windowTokenCountMatchesWhatTheServerSentInsideTheWindow() {
    StageRun run;
    List<EmissionRecord> truth;
    try (SimFixture sim = SimFixture.start(SimFixture.config(50, 20))) {
      run =
          StageKit.run(
              StageKit.stage(sim)
                  .closed(USERS)
                  .warmupMillis(300)
                  .durationMillis(1_500)
                  .cooldownMillis(0)
                  .maxTokens(30));
      sim.awaitAllRecords(2_000);
      truth = sim.records();
    }
    StageResult r = run.result();
    long ws = run.windowStartNanos();
    long we = run.windowEndNanos();
    // The window sits at its planned times: 300 ms after the stage start, 1.5 s long.
    assertThat(r.window().startOffsetNanos()).isEqualTo(300 * MS);
    assertThat(we - ws).isEqualTo(1_500 * MS);
    assertThat(r.window().complete()).isTrue();

    // 1. The recorder's count is exactly the client's chunk arrivals in [ws, we), every request
    //    of every phase (one token per chunk here: usage equals the chunk count).
    long clientCount = 0;
    for (StageRun.Finished f : run.requests()) {
      RequestTimeline t = f.timeline();
      for (int i = 0; i < t.chunkCount(); i++) {
        if (t.chunkNanos(i) >= ws && t.chunkNanos(i) < we) {
          clientCount += f.metrics().chunkTokens(i);
        }
      }
    }
    long windowTokens = r.throughput().windowOutputTokens();
    assertThat(windowTokens).isEqualTo(clientCount);
    assertThat(r.throughput().outputTokensPerSecond()).isCloseTo(windowTokens / 1.5, within(1e-9));

    // 2. The server's count of tokens written in [ws, we). A token written just before an edge
    //    arrives just after it; delivery takes well under the 20 ms between a stream's tokens, so
    //    each stream moves at most one token across each edge: |client − server| <= users.
    long serverCount = 0;
    for (EmissionRecord rec : truth) {
      for (long at : rec.actualNanos()) {
        if (at >= ws && at < we) {
          serverCount++;
        }
      }
    }
    // 8 streams at 50 tokens/s less TTFT pauses: several hundred tokens, so the check has teeth.
    assertThat(serverCount).isGreaterThan(400);
    assertThat(windowTokens).isBetween(serverCount - USERS, serverCount + USERS);
  }
}
