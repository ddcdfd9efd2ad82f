package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Open and closed load models over real sockets: counts, schedules and the concurrency cap. */
@Timeout(60)
class LoadModelsIT {
  private static final long MS = 1_000_000L;

  @Test
  void openLoopAtTwentyPerSecondForTwoSecondsMeasuresExactlyForty() {
    StageRun run;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 5))) {
      run =
          StageKit.run(
              StageKit.stage(sim)
                  .openConstant(20, 0)
                  .warmupMillis(200)
                  .durationMillis(2_000)
                  .cooldownMillis(0)
                  .maxTokens(3));
    }
    StageResult r = run.result();
    // Arrival i is planned at exactly i * 50 ms from the stage start, whenever the previous one
    // was really sent: 0..150 ms are warm-up (4), 200..2150 ms measured (40), 2200 is past the end.
    List<Long> measuredOffsets = new ArrayList<>();
    for (StageRun.Finished f : run.measured()) {
      measuredOffsets.add(f.timeline().scheduledNanos() - r.stageStartNanos());
    }
    List<Long> planned = new ArrayList<>();
    for (long i = 4; i < 44; i++) {
      planned.add(i * 50 * MS);
    }
    assertThat(measuredOffsets).isEqualTo(planned);
    assertThat(r.requests().completed()).isEqualTo(40);
    assertThat(r.requests().byPhase().get(Phase.WARMUP).completed()).isEqualTo(4);
    assertThat(run.requests()).hasSize(44);
    for (StageRun.Finished f : run.requests()) {
      RequestMetrics m = f.metrics();
      // From the plan >= from the send: the difference is the send lag, never negative.
      assertThat(m.ttftFromScheduledNanos()).isGreaterThanOrEqualTo(m.ttftNanos());
      assertThat(m.ttftFromScheduledNanos() - m.ttftNanos()).isEqualTo(m.sendLagNanos());
      assertThat(m.e2eFromScheduledNanos()).isGreaterThanOrEqualTo(m.e2eNanos());
    }
  }

  @Test
  void requestsStopMeasuresExactlyNAndTheWindowEndsWithTheLast() {
    StageRun run;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 5))) {
      run = StageKit.run(StageKit.stage(sim).closed(3).requests(7).maxTokens(3));
    }
    StageResult r = run.result();
    assertThat(r.requests().completed()).isEqualTo(7);
    assertThat(r.requests().failed()).isZero();
    // No cool-down: once the 7th is planned nothing else is sent.
    assertThat(run.requests()).hasSize(7);
    assertThat(r.requests().byPhase().get(Phase.COOLDOWN).completed()).isZero();
    assertThat(r.metric(Metric.TTFT).count()).isEqualTo(7);
    long lastEnd =
        run.measured().stream().mapToLong(f -> f.metrics().endNanos()).max().orElseThrow();
    assertThat(r.window().complete()).isTrue();
    assertThat(run.windowEndNanos()).isEqualTo(lastEnd);
  }

  @Test
  void maxConcurrencyCapsInFlightAndScheduledLatencyShowsTheQueue() {
    StageRun run;
    List<EmissionRecord> truth;
    try (SimFixture sim = SimFixture.start(SimFixture.config(100, 10))) {
      // Service ~120 ms (TTFT 100 + 2 x 10 ms), arrivals every 50 ms, at most 2 in flight: 2 slots
      // serve 16.7/s < 20/s, so a queue builds up.
      run =
          StageKit.run(
              StageKit.stage(sim)
                  .openConstant(20, 2)
                  .durationMillis(500)
                  .cooldownMillis(0)
                  .maxTokens(3));
      sim.awaitAllRecords(2_000);
      truth = sim.records();
    }
    List<StageRun.Finished> measured = run.measured();
    assertThat(measured).hasSize(10);
    assertThat(measured).allSatisfy(f -> assertThat(f.metrics().succeeded()).isTrue());

    // In flight, client view [sent, end] and server view [arrival, last token written]: never 3.
    List<long[]> client = new ArrayList<>();
    for (StageRun.Finished f : run.requests()) {
      client.add(new long[] {f.timeline().sentNanos(), f.timeline().endNanos()});
    }
    List<long[]> server = new ArrayList<>();
    for (EmissionRecord rec : truth) {
      server.add(new long[] {rec.arrivalNanos(), rec.actualNanos()[rec.tokenCount() - 1]});
    }
    assertThat(maxOverlap(client)).isEqualTo(2);
    assertThat(maxOverlap(server)).isEqualTo(2);

    // Queueing, by hand with a 120 ms service: request i (planned at 50i ms) starts at 0, 50, 120,
    // 170, 240, 290, 360, 410, 480, 530 ms: waits 0, 0, 20, 20, 40, 40, 60, 60, 80, 80 (mean 40).
    // A slower server only lengthens the queue, so these are lower bounds.
    double waitSum = 0;
    long maxWait = 0;
    for (StageRun.Finished f : measured) {
      RequestMetrics m = f.metrics();
      long wait = m.ttftFromScheduledNanos() - m.ttftNanos();
      assertThat(wait).isEqualTo(m.sendLagNanos()).isGreaterThanOrEqualTo(0);
      waitSum += wait;
      maxWait = Math.max(maxWait, wait);
    }
    assertThat(waitSum / measured.size()).isGreaterThan(25.0 * MS);
    assertThat(maxWait).isGreaterThan(50 * MS);
    StageResult r = run.result();
    assertThat(r.metric(Metric.TTFT_FROM_SCHEDULED).mean() - r.metric(Metric.TTFT).mean())
        .isGreaterThan(25.0);
    // Capped waiting is not client lag: send lag measures lateness from the moment a slot freed.
    assertThat(r.metric(Metric.SEND_LAG).max()).isLessThan(maxWait / 1e6);
  }

  /** The largest number of intervals [start, end) covering one instant; ends sort first on ties. */
  private static int maxOverlap(List<long[]> intervals) {
    List<long[]> events = new ArrayList<>();
    for (long[] iv : intervals) {
      events.add(new long[] {iv[0], +1});
      events.add(new long[] {iv[1], -1});
    }
    events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    int level = 0;
    int max = 0;
    for (long[] e : events) {
      level += (int) e[1];
      max = Math.max(max, level);
    }
    return max;
  }
}
