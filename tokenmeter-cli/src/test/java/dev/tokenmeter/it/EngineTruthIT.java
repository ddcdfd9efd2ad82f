package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.simulator.EngineTiming;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.simulator.engine.Roofline;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine-backed server under load: per-user decode TPS falls and aggregate TPS climbs with
 * concurrency, and what the client measures is what the engine scheduled.
 *
 * <p>Mixtral 8x7B on one H200: at batch 1 an iteration reads the 12.9 B active parameters (about
 * 6.0 ms at the fitted MBU, + 2.33 ms of vLLM overheads and a graph launch: 8.3 ms), at batch 32
 * nearly all 46.7 B (about 21.6 ms, + 2.3 + 32 × 0.0075 ms: 24.2 ms), so the effect is large and
 * quick to see.
 */
@Timeout(60)
class EngineTruthIT {
  private static final long MS = 1_000_000L;
  private static final int TOKENS = 30;

  @BeforeAll
  static void warmUp() {
    StageKit.warmUpOnce();
  }

  private record Stage(StageRun run, List<EmissionRecord> truth, Roofline roofline) {}

  private static Stage stage(int users) {
    EngineTiming timing =
        new EngineTiming(
            EngineConfig.of(Presets.model("mixtral-8x7b"), Presets.gpu("h200")), Ticker.system());
    try (SimFixture sim =
        SimFixture.start(SimFixture.config(0, 0).timing(timing).maxModelLen(timing.maxModelLen()))) {
      StageRun run =
          StageKit.run(
              StageKit.stage(sim)
                  .closed(users)
                  .warmupMillis(400)
                  .durationMillis(1_500)
                  .cooldownMillis(0)
                  .maxTokens(TOKENS));
      sim.awaitAllRecords(3_000);
      return new Stage(run, sim.records(), timing.roofline());
    }
  }

  @Test
  void perUserTpsFallsAndAggregateTpsClimbsWithConcurrency() {
    Stage one = stage(1);
    Stage many = stage(32);
    StageResult r1 = one.run().result();
    StageResult r32 = many.run().result();
    double perUser1 = r1.metric(Metric.DECODE_TPS).p50();
    double perUser32 = r32.metric(Metric.DECODE_TPS).p50();
    // batch 1 ≈ 106 tokens/s per user, batch 32 ≈ 42: well apart, whatever the machine's noise
    assertThat(perUser32).isLessThan(perUser1 * 0.6);
    assertThat(r32.throughput().outputTokensPerSecond())
        .isGreaterThan(4 * r1.throughput().outputTokensPerSecond());

    // c = 1: one sequence at a time, so every decode token is due exactly one roofline iteration
    // after the previous: token i has P + i − 1 tokens of context and attends to P + i.
    int checked = 0;
    for (EmissionRecord rec : one.truth()) {
      long[] due = rec.intendedNanos();
      int p = rec.request().promptTokens();
      for (int i = 1; i < due.length; i++) {
        assertThat(due[i] - due[i - 1])
            .as("request %d token %d", rec.request().serverRequestId(), i)
            .isEqualTo(one.roofline().iterationNanos(1, p + i, p + i - 1L, 1));
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(100);

    // What the client measured is what the engine scheduled: median ITL within 0.5 ms of the
    // median gap between due times, at both loads (a delivery delay moves both ends of a gap).
    for (Stage s : List.of(one, many)) {
      double clientItlMillis = s.run().result().metric(Metric.ITL).p50();
      double serverItlMillis = medianGapMillis(s.truth());
      assertThat(clientItlMillis).isCloseTo(serverItlMillis, org.assertj.core.api.Assertions.within(0.5));
    }
  }

  private static double medianGapMillis(List<EmissionRecord> records) {
    long[] gaps =
        records.stream()
            .flatMapToLong(
                rec -> {
                  long[] d = rec.intendedNanos();
                  long[] g = new long[Math.max(0, d.length - 1)];
                  for (int i = 1; i < d.length; i++) {
                    g[i - 1] = d[i] - d[i - 1];
                  }
                  return Arrays.stream(g);
                })
            .sorted()
            .toArray();
    return gaps[gaps.length / 2] / (double) MS;
  }
}
