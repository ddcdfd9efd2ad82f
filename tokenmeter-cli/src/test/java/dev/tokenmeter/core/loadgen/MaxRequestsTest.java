package dev.tokenmeter.core.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
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

/**
 * {@code --max-requests}: a stage never sends more than its cap, every phase counted; with {@code
 * --requests N} the warm-up leaves the window its N. In virtual time.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MaxRequestsTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long T0 = 5 * S;
  private static final Timeouts NO_TIMEOUTS = new Timeouts(0, 0, 0);
  private static final RequestSource HI =
      id -> new RequestSpec(id, new Prompt.Text("hi"), 1, false, OptionalInt.of(10));

  private final VirtualLoop loop = new VirtualLoop(T0);
  private final List<RequestTimeline> finished = new ArrayList<>();
  /** Each request: 1 ms to send, first token 100 ms later, 10 tokens 10 ms apart: 191 ms. */
  private final ScriptedEndpoint endpoint = new ScriptedEndpoint(loop, new Script(MS, 100 * MS, 10 * MS, 10));

  private StageResult run(StagePlan plan) {
    StageRunner runner = new StageRunner(endpoint, plan, HI, NO_TIMEOUTS, loop, (t, m) -> finished.add(t), null);
    CompletableFuture<Long> done = runner.start();
    assertThat(loop.runUntil(done::isDone)).as("stage ended").isTrue();
    return runner.recorder().finish(done.join(), ClientCpu.UNKNOWN);
  }

  private long count(Phase phase) {
    return finished.stream().filter(t -> t.phase() == phase).count();
  }

  @Test
  void theWarmUpSendsWhatTheCapLeavesTheWindowItsNAndTheCoolDownNothing() {
    // 4 users, 1 s of warm-up (about 20 requests uncapped), 40 measured, 5 s of cool-down.
    StagePlan plan = new StagePlan(0, new LoadModel.Closed(4, 0), new StopCondition.Requests(40), S, 5 * S, 1, 50);

    StageResult r = run(plan);

    assertThat(count(Phase.WARMUP)).isEqualTo(10);
    assertThat(r.requests().completed()).isEqualTo(40);
    assertThat(count(Phase.COOLDOWN)).isZero();
    assertThat(finished).hasSize(50).noneMatch(t -> t.outcome() instanceof Outcome.Cancelled);
    assertThat(r.window().complete()).isTrue();
    // The users held back in the warm-up start when the window opens, not before.
    assertThat(finished.stream().filter(t -> t.phase() == Phase.MEASURED).mapToLong(RequestTimeline::sentNanos).min())
        .hasValue(T0 + S + MS);
    assertThat(loop.nanos() - T0).as("the cool-down does not wait when it may send nothing").isLessThan(4 * S);
  }

  @Test
  void aDurationWindowIsCutShortWhenTheCapIsSpent() {
    StagePlan plan = new StagePlan(0, new LoadModel.Closed(2, 0), new StopCondition.Duration(60 * S), 0, 0, 1, 7);

    StageResult r = run(plan);

    assertThat(finished).hasSize(7).allMatch(t -> t.outcome().succeeded());
    assertThat(r.window().complete()).isFalse();
    assertThat(loop.nanos() - T0).isLessThan(2 * S);
  }

  @Test
  void anOpenLoopSendsNoMoreThanTheCap() {
    StagePlan plan = new StagePlan(0, new LoadModel.Open(50, new Arrivals.Constant(), OptionalInt.empty()),
        new StopCondition.Duration(10 * S), S, S, 1, 30);

    run(plan);

    assertThat(finished).hasSize(30);
    assertThat(count(Phase.WARMUP)).isEqualTo(30); // 50/s for 1 s: the warm-up spends it, as documented
  }

  @Test
  void thePlanRefusesACapBelowTheWindowOrOneLeavingAWarmUpNothing() {
    assertThatThrownBy(() -> new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(40), 0, 0, 1, 39))
        .hasMessage("--max-requests 39 is below --requests 40: the window alone sends 40; give --max-requests 40 or more");
    assertThatThrownBy(() -> new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(40), S, 0, 1, 40))
        .hasMessageContaining("leaves the warm-up no requests to send: give --warmup 0s");
    StagePlan exact = new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(40), 0, S, 1, 40);
    assertThat(exact.warmupRequestLimit()).isZero();
    assertThat(exact.withLoad(new LoadModel.Closed(2, 0)).maxRequests()).isEqualTo(40);
    assertThat(new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(4), 0, 0, 1).warmupRequestLimit())
        .isEqualTo(Long.MAX_VALUE);
  }
}
