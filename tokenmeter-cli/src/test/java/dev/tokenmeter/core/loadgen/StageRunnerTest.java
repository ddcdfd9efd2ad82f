package dev.tokenmeter.core.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.simulator.virtual.VirtualLoop;
import dev.tokenmeter.testkit.ScriptedEndpoint.Script;
import dev.tokenmeter.testkit.ScriptedEndpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The stage runner's scheduling, phases, windows and deadlines, in virtual time (no sockets, no sleeps). */
// A stage that never ends would spin the virtual loop for ever: fail instead of hanging.
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StageRunnerTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long T0 = 5 * S;
  private static final Timeouts NO_TIMEOUTS = new Timeouts(0, 0, 0);
  private static final RequestSource HI =
      id -> new RequestSpec(id, new Prompt.Text("hi"), 1, false, OptionalInt.of(10));

  private final VirtualLoop loop = new VirtualLoop(T0);
  private final List<RequestTimeline> finished = new ArrayList<>();

  private StageResult run(ScriptedEndpoint endpoint, StagePlan plan, Timeouts timeouts) {
    StageRunner runner =
        new StageRunner(endpoint, plan, HI, timeouts, loop, (t, m) -> finished.add(t), null);
    CompletableFuture<Long> done = runner.start();
    assertThat(loop.runUntil(done::isDone)).as("stage ended before the loop ran dry").isTrue();
    assertThat(loop.nanos()).isLessThan(T0 + 600 * S);
    return runner.recorder().finish(done.join(), ClientCpu.UNKNOWN);
  }

  private long count(Phase phase, boolean ok) {
    return finished.stream().filter(t -> t.phase() == phase && t.outcome().succeeded() == ok).count();
  }

  @Test
  void closedLoopCountsOnlyRequestsScheduledInTheWindowAndKeepsLoadOnThroughTheCooldown() {
    // Each request: sent after 1 ms, first token 100 ms later, 10 tokens 10 ms apart: 191 ms.
    // Both users schedule at k * 191 ms. Window [1000, 3000) ms holds k = 6..15: 10 per user.
    var endpoint = new ScriptedEndpoint(loop, new Script(MS, 100 * MS, 10 * MS, 10));
    var plan = new StagePlan(0, new LoadModel.Closed(2, 0), new StopCondition.Duration(2 * S), S, 500 * MS, 1);

    StageResult r = run(endpoint, plan, NO_TIMEOUTS);

    assertThat(r.requests().completed()).isEqualTo(20);
    assertThat(count(Phase.WARMUP, true)).isEqualTo(12); // k = 0..5
    // k = 15 ends at 3056 ms; cool-down issues k = 16 (3056), 17 (3247), 18 (3438) and stops at
    // 3500 ms, cancelling k = 18 of each user.
    assertThat(count(Phase.COOLDOWN, true)).isEqualTo(4);
    assertThat(count(Phase.COOLDOWN, false)).isEqualTo(2);
    assertThat(finished.stream().filter(t -> t.outcome() instanceof Outcome.Cancelled))
        .allMatch(t -> t.phase() == Phase.COOLDOWN);
    assertThat(r.errors()).isEmpty();
    assertThat(r.metric(Metric.TTFT).mean()).isCloseTo(100.0, within(0.1));
    assertThat(r.metric(Metric.TTFT_FROM_SCHEDULED).mean()).isCloseTo(101.0, within(0.1));
    assertThat(r.metric(Metric.TPOT).p99()).isCloseTo(10.0, within(0.01));
    assertThat(r.window().lengthNanos()).isEqualTo(2 * S);
    assertThat(r.throughput().windowOutputTokens()).isEqualTo(expectedWindowTokens());
    assertThat(r.throughput().achievedConcurrency()).isCloseTo(2.0 * 190 / 191, within(0.02));
  }

  /** Tokens of both users whose arrival k*191 + 101 + 10 i ms falls in [1000, 3000) ms. */
  private static long expectedWindowTokens() {
    long n = 0;
    for (int k = 0; k < 20; k++) {
      for (int i = 0; i < 10; i++) {
        long at = k * 191 + 101 + 10 * i;
        boolean sent = k * 191 < 3500; // issued before the stage stopped
        boolean arrived = k != 18 || at < 3500; // k = 18 was cancelled at 3500 ms
        if (sent && arrived && at >= 1000 && at < 3000) {
          n += 2;
        }
      }
    }
    return n;
  }

  @Test
  void openLoopReleasesExactlyRateTimesWindowRequestsAtTheirScheduledTimes() {
    var endpoint = new ScriptedEndpoint(loop, new Script(0, 20 * MS, 10 * MS, 3));
    var plan =
        new StagePlan(
            0, new LoadModel.Open(10, new Arrivals.Constant(), OptionalInt.empty()), new StopCondition.Duration(S), 0, 0, 1);

    StageResult r = run(endpoint, plan, NO_TIMEOUTS);

    assertThat(r.requests().completed()).isEqualTo(10);
    assertThat(finished).extracting(t -> t.scheduledNanos() - T0)
        .containsExactly(0L, 100 * MS, 200 * MS, 300 * MS, 400 * MS, 500 * MS, 600 * MS, 700 * MS, 800 * MS, 900 * MS);
    assertThat(finished).allMatch(t -> t.sentNanos() == t.scheduledNanos());
  }

  @Test
  void aRecordedScheduleSendsEachArrivalOnceAtItsOffsetThenNothing() {
    var endpoint = new ScriptedEndpoint(loop, new Script(0, 20 * MS, 10 * MS, 3));
    long[] offsets = {0, 0, 250 * MS, 3 * S + 7};
    var plan = new StagePlan(0, new LoadModel.Open(1, new Arrivals.Trace(offsets), OptionalInt.empty()),
        new StopCondition.Duration(offsets[3] + 1), 0, 0, 1);

    StageResult r = run(endpoint, plan, NO_TIMEOUTS);

    assertThat(r.requests().completed()).isEqualTo(4);
    assertThat(finished).extracting(t -> t.scheduledNanos() - T0).containsExactlyInAnyOrder(0L, 0L, 250 * MS, 3 * S + 7);
    assertThat(finished).allMatch(t -> t.sentNanos() == t.scheduledNanos());
    assertThat(finished).allMatch(t -> t.phase() == Phase.MEASURED);
  }

  @Test
  void concurrencyCapQueuesArrivalsAndLatencyFromTheScheduleShowsTheWait() {
    // One slot, each request takes 250 ms, arrivals every 100 ms: request i starts at 250 i ms.
    var endpoint = new ScriptedEndpoint(loop, new Script(0, 50 * MS, 50 * MS, 5));
    var plan =
        new StagePlan(
            0, new LoadModel.Open(10, new Arrivals.Constant(), OptionalInt.of(1)), new StopCondition.Duration(S), 0, 0, 1);

    StageResult r = run(endpoint, plan, NO_TIMEOUTS);

    assertThat(endpoint.peakInFlight()).isEqualTo(1);
    assertThat(r.requests().completed()).isEqualTo(10);
    assertThat(r.metric(Metric.TTFT).max()).isCloseTo(50.0, within(0.1));
    // ttft from schedule of request i = 250 i + 50 - 100 i = 150 i + 50 ms; the last is 1400 ms.
    assertThat(r.metric(Metric.TTFT_FROM_SCHEDULED).max()).isCloseTo(1400.0, within(1.5));
    assertThat(r.metric(Metric.TTFT_FROM_SCHEDULED).min()).isCloseTo(50.0, within(0.1));
    // Waiting for the cap is not client lag.
    assertThat(r.clientHealth().sendLagMillis().max()).isEqualTo(0.0);
  }

  @Test
  void requestCountWindowHoldsExactlyNRequestsAndEndsWithTheLast() {
    var endpoint = new ScriptedEndpoint(loop, new Script(MS, 10 * MS, 10 * MS, 2));
    var plan = new StagePlan(0, new LoadModel.Closed(3, 0), new StopCondition.Requests(7), 0, 0, 1);

    StageResult r = run(endpoint, plan, NO_TIMEOUTS);

    assertThat(r.requests().completed()).isEqualTo(7);
    assertThat(count(Phase.MEASURED, true)).isEqualTo(7);
    long lastMeasuredEnd =
        finished.stream().filter(t -> t.phase() == Phase.MEASURED).mapToLong(RequestTimeline::endNanos).max().orElseThrow();
    assertThat(r.window().endOffsetNanos()).isEqualTo(lastMeasuredEnd - T0);
    assertThat(r.window().complete()).isTrue();
  }

  @Test
  void aServerThatNeverAnswersTimesOutOnTheFirstToken() {
    var endpoint = new ScriptedEndpoint(loop, new Script(MS, 0, 0, -1));
    var plan = new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(2), 0, 0, 1);

    StageResult r = run(endpoint, plan, new Timeouts(500 * MS, 0, 0));

    assertThat(r.errors()).containsEntry(ErrorClass.TIMEOUT_FIRST_TOKEN, 2L);
    RequestTimeline first = finished.get(0);
    long waited = first.endNanos() - first.sentNanos();
    assertThat(waited).isBetween(500 * MS, 520 * MS); // deadlines are swept every 20 ms
  }

  @Test
  void aStreamThatStallsTimesOutAsIdleAndASlowOneAsTotal() {
    var endpoint = new ScriptedEndpoint(loop, new Script(0, 10 * MS, 400 * MS, 3));
    var plan = new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(1), 0, 0, 1);
    StageResult idle = run(endpoint, plan, new Timeouts(0, 300 * MS, 0));
    assertThat(idle.errors()).containsOnlyKeys(ErrorClass.TIMEOUT_IDLE);

    finished.clear();
    var endpoint2 = new ScriptedEndpoint(loop, new Script(0, 10 * MS, 100 * MS, 20));
    StageResult total = run(endpoint2, plan, new Timeouts(0, 0, S));
    assertThat(total.errors()).containsOnlyKeys(ErrorClass.TIMEOUT_TOTAL);
  }

  @Test
  void everyDeadlineResolvesWithinOneSweepOfItsOwnInstantWithManyRequestsInFlight() {
    // Three kinds of request in flight together, 90 at a time: one never answers, one stalls
    // after its second token, one streams steadily for longer than the total allowed. Deadlines
    // are looked at only when due (Flights.deadlines), so each must still end within one
    // sweep (20 ms) after its own instant, and with the right kind.
    var endpoint =
        new ScriptedEndpoint(
            loop,
            spec ->
                switch ((int) (spec.id() % 3)) {
                  case 0 -> new Script(MS, 0, 0, -1);
                  case 1 -> new Script(MS, 30 * MS + spec.id() * MS / 7, 200 * MS, 5);
                  default -> new Script(MS, 10 * MS, 100 * MS, 30);
                });
    var plan = new StagePlan(0, new LoadModel.Closed(90, 0), new StopCondition.Requests(270), 0, 0, 1);

    StageResult r = run(endpoint, plan, new Timeouts(400 * MS, 150 * MS, 2 * S));

    assertThat(r.errors())
        .containsOnlyKeys(ErrorClass.TIMEOUT_FIRST_TOKEN, ErrorClass.TIMEOUT_IDLE, ErrorClass.TIMEOUT_TOTAL);
    assertThat(finished).hasSizeGreaterThanOrEqualTo(270);
    for (RequestTimeline t : finished) {
      if (!(t.outcome() instanceof Outcome.TimedOut out)) {
        continue; // cancelled at the stage's end
      }
      long due =
          switch (out.kind()) {
            case FIRST_TOKEN -> t.sentNanos() + 400 * MS;
            case IDLE -> t.lastTokenNanos() + 150 * MS;
            case TOTAL -> t.sentNanos() + 2 * S;
          };
      assertThat(out.kind().ordinal()).as("request %d", t.id()).isEqualTo(expectedKind(t.id()).ordinal());
      assertThat(t.endNanos() - due).as("request %d late by", t.id()).isBetween(1L, 20 * MS);
    }
  }

  private static dev.tokenmeter.core.request.TimeoutKind expectedKind(long id) {
    return switch ((int) (id % 3)) {
      case 0 -> dev.tokenmeter.core.request.TimeoutKind.FIRST_TOKEN;
      case 1 -> dev.tokenmeter.core.request.TimeoutKind.IDLE;
      default -> dev.tokenmeter.core.request.TimeoutKind.TOTAL;
    };
  }

  @Test
  void anIdleDeadlineShorterThanTheFirstTokenOnesIsKeptOnceTheFirstTokenCame() {
    // First token at 30 ms, after the first sweep saw none; then a 400 ms stall. The idle clock
    // (300 ms) must fire from the first token, not wait for the 5 s first-token deadline.
    var endpoint = new ScriptedEndpoint(loop, new Script(0, 30 * MS, 400 * MS, 3));
    var plan = new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(1), 0, 0, 1);

    StageResult r = run(endpoint, plan, new Timeouts(5 * S, 300 * MS, 0));

    assertThat(r.errors()).containsOnlyKeys(ErrorClass.TIMEOUT_IDLE);
    RequestTimeline t = finished.get(0);
    assertThat(t.endNanos() - t.firstTokenNanos()).isBetween(300 * MS + 1, 320 * MS);
  }

  @Test
  void interruptStopsAtOnceCancelsInFlightAndLeavesTheWindowIncomplete() {
    var endpoint = new ScriptedEndpoint(loop, new Script(MS, 100 * MS, 10 * MS, 50));
    var plan = new StagePlan(0, new LoadModel.Closed(2, 0), new StopCondition.Duration(60 * S), 0, 0, 1);
    StageRunner runner = new StageRunner(endpoint, plan, HI, NO_TIMEOUTS, loop, (t, m) -> finished.add(t), null);
    CompletableFuture<Long> done = runner.start();
    loop.runUntil(T0 + 2 * S);
    runner.interrupt("test");
    assertThat(loop.runUntil(done::isDone)).isTrue();

    assertThat(done.join()).isEqualTo(T0 + 2 * S);
    StageResult r = runner.recorder().finish(done.join(), ClientCpu.UNKNOWN);
    assertThat(r.window().complete()).isFalse();
    assertThat(r.errors()).as("the tool's own cancellations are no errors").isEmpty();
    assertThat(r.requests().failed()).isZero();
    assertThat(finished.stream().filter(t -> t.outcome() instanceof Outcome.Cancelled)).hasSize(2);
  }

  @Test
  void aUserWhoseRequestCannotConnectPausesBeforeTheNext() {
    var endpoint = new ScriptedEndpoint(loop, new Script(MS, 0, 0, -2));
    var plan = new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Duration(S), 0, 0, 1);

    StageResult r = run(endpoint, plan, NO_TIMEOUTS);

    // One attempt per 101 ms (1 ms to fail, then the pause) over one second: 10, not thousands.
    assertThat(r.errors()).containsOnlyKeys(ErrorClass.CONNECT);
    assertThat(r.requests().failed()).isEqualTo(10);
  }
}
