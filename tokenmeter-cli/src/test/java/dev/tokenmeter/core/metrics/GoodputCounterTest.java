package dev.tokenmeter.core.metrics;

import static dev.tokenmeter.core.analysis.LatencyOrigin.SCHEDULED;
import static dev.tokenmeter.core.analysis.LatencyOrigin.SENT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.slo.Slo;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Goodput's numerator: which requests meet every per-request objective, judged by threshold. */
class GoodputCounterTest {
  private static final long MS = 1_000_000L;
  private static final LoadModel CLOSED = new LoadModel.Closed(4, 0);
  private static final LoadModel OPEN =
      new LoadModel.Open(2, new Arrivals.Constant(), OptionalInt.of(1));

  /** A measured request sent at 0 with its first token at {@code ttftMs} and tokens every {@code itlMs}. */
  private static RequestMetrics request(Phase phase, long ttftMs, long itlMs, int tokens) {
    Timelines b = Timelines.request(0, phase, 0, 10).sent(0);
    long at = ttftMs * MS;
    for (int i = 0; i < tokens; i++) {
      b.chunk(at, "x");
      at += itlMs * MS;
    }
    return RequestMetrics.of(b.completedAtLastChunk(at), null);
  }

  @Test
  void aRequestCountsWhenItMeetsEveryThreshold() {
    GoodputCounter g = new GoodputCounter(Slo.parse("ttft.p99<=800ms,tpot.p99<=50ms,errors<=1%,itl.p99<=10ms"));
    assertThat(g.meets(request(Phase.MEASURED, 800, 50, 10), SENT)).isTrue(); // both on their limits
    assertThat(g.meets(request(Phase.MEASURED, 801, 20, 10), SENT)).isFalse(); // TTFT over
    assertThat(g.meets(request(Phase.MEASURED, 100, 51, 10), SENT)).isFalse(); // TPOT over
    // errors and itl have no per-request value: a 50 ms ITL does not matter here.
  }

  @Test
  void onlyMeasuredSuccessesCountPerStage() {
    GoodputCounter g = new GoodputCounter(Slo.parse("tps.p10>=30"));
    g.accept(request(Phase.MEASURED, 100, 20, 5)); // 50 tok/s
    g.accept(request(Phase.MEASURED, 100, 40, 5)); // 25 tok/s: too slow
    g.accept(request(Phase.WARMUP, 100, 20, 5));
    g.accept(request(Phase.COOLDOWN, 100, 20, 5));
    RequestTimeline failed = Timelines.request(0, Phase.MEASURED, 0, 10).sent(0)
        .chunks(10 * MS, 20 * MS).failed(new Outcome.HttpError(500, "boom"), 30 * MS);
    g.accept(RequestMetrics.of(failed, null));
    assertThat(g.count(0, CLOSED)).isEqualTo(1);
    assertThat(g.count(7, CLOSED)).isZero();
  }

  @Test
  void aOneTokenRequestMeetsTpotAndTpsObjectives() {
    GoodputCounter g = new GoodputCounter(Slo.parse("tpot.p99<=10ms,tps.p50>=100,ttft.p50<=1s"));
    assertThat(g.meets(request(Phase.MEASURED, 100, 0, 1), SENT)).isTrue();
  }

  /** A request scheduled at 0 that waited {@code waitMs} for its send, then {@code ttftMs} to its first token. */
  private static RequestMetrics waited(long waitMs, long ttftMs) {
    Timelines b = Timelines.request(0, Phase.MEASURED, 0, 10).sent(waitMs * MS);
    long at = (waitMs + ttftMs) * MS;
    b.chunk(at, "x").chunk(at + 10 * MS, "y");
    return RequestMetrics.of(b.completedAtLastChunk(at + 10 * MS), null);
  }

  @Test
  void aBareTtftIsJudgedFromTheScheduleInAnOpenLoopAndFromTheSendInAClosedOne() {
    GoodputCounter g = new GoodputCounter(Slo.parse("ttft.p99<=500ms"));
    RequestMetrics queued = waited(400, 300); // 300 ms from the send, 700 ms from the schedule
    assertThat(g.meets(queued, SENT)).isTrue();
    assertThat(g.meets(queued, SCHEDULED)).isFalse();
    g.accept(queued);
    g.accept(waited(0, 300));
    assertThat(g.count(0, CLOSED)).isEqualTo(2);
    assertThat(g.count(0, OPEN)).isEqualTo(1);
  }

  @Test
  void namedOriginsIgnoreTheLoadModel() {
    RequestMetrics queued = waited(400, 300);
    GoodputCounter sent = new GoodputCounter(Slo.parse("ttft_sent.p99<=500ms,e2e_sent.p50<=320ms"));
    assertThat(sent.meets(queued, SCHEDULED)).isTrue();
    GoodputCounter scheduled = new GoodputCounter(Slo.parse("ttft_scheduled.p99<=500ms"));
    assertThat(scheduled.meets(queued, SENT)).isFalse();
    GoodputCounter e2e = new GoodputCounter(Slo.parse("e2e.p99<=500ms"));
    assertThat(e2e.meets(queued, SENT)).isTrue(); // 310 ms
    assertThat(e2e.meets(queued, SCHEDULED)).isFalse(); // 710 ms
  }

  @Test
  void withoutPerRequestObjectivesEverySuccessCounts() {
    GoodputCounter g = new GoodputCounter(Slo.parse("errors<=1%"));
    g.accept(request(Phase.MEASURED, 5000, 500, 3));
    assertThat(g.count(0, CLOSED)).isEqualTo(1);
  }

  @Test
  void goodputIsTheCountPerSecondOfWindow() {
    var stage = SampleStages.closed(42); // 10 s window
    assertThat(stage.withGoodput(25).throughput().goodputRequestsPerSecond()).isEqualTo(2.5);
    assertThat(stage.withGoodput(25).throughput().requestsPerSecond()).isEqualTo(stage.throughput().requestsPerSecond());
  }
}
