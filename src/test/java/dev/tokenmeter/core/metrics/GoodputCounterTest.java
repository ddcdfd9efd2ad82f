package dev.tokenmeter.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.Slo;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestTimeline;
import org.junit.jupiter.api.Test;

/** Goodput's numerator: which requests meet every per-request objective, judged by threshold. */
class GoodputCounterTest {
  private static final long MS = 1_000_000L;

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
    assertThat(g.meets(request(Phase.MEASURED, 800, 50, 10))).isTrue(); // both on their limits
    assertThat(g.meets(request(Phase.MEASURED, 801, 20, 10))).isFalse(); // TTFT over
    assertThat(g.meets(request(Phase.MEASURED, 100, 51, 10))).isFalse(); // TPOT over
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
    assertThat(g.count(0)).isEqualTo(1);
    assertThat(g.count(7)).isZero();
  }

  @Test
  void aOneTokenRequestMeetsTpotAndTpsObjectives() {
    GoodputCounter g = new GoodputCounter(Slo.parse("tpot.p99<=10ms,tps.p50>=100,ttft.p50<=1s"));
    assertThat(g.meets(request(Phase.MEASURED, 100, 0, 1))).isTrue();
  }

  @Test
  void withoutPerRequestObjectivesEverySuccessCounts() {
    GoodputCounter g = new GoodputCounter(Slo.parse("errors<=1%"));
    g.accept(request(Phase.MEASURED, 5000, 500, 3));
    assertThat(g.count(0)).isEqualTo(1);
  }

  @Test
  void goodputIsTheCountPerSecondOfWindow() {
    var stage = SampleStages.closed(42); // 10 s window
    assertThat(stage.withGoodput(25).throughput().goodputRequestsPerSecond()).isEqualTo(2.5);
    assertThat(stage.withGoodput(25).throughput().requestsPerSecond()).isEqualTo(stage.throughput().requestsPerSecond());
  }
}
