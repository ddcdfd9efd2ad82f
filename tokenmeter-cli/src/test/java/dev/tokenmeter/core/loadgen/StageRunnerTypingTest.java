package dev.tokenmeter.core.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.Completions;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.SessionTurn;
import dev.tokenmeter.simulator.virtual.VirtualLoop;
import dev.tokenmeter.testkit.ScriptedEndpoint.Script;
import dev.tokenmeter.testkit.ScriptedEndpoint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The runner's typing bursts ({@code --profile completion}): supersede and cancel-after, in virtual time. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StageRunnerTypingTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long T0 = 5 * S;
  private static final Timeouts NO_TIMEOUTS = new Timeouts(0, 0, 0);
  /** Sent after 1 ms, first token 100 ms later, 10 tokens 10 ms apart: a request takes 191 ms. */
  private static final Script REQUEST = new Script(MS, 100 * MS, 10 * MS, 10);

  private final VirtualLoop loop = new VirtualLoop(T0);
  private final List<RequestTimeline> finished = new ArrayList<>();

  /** Bursts of {@code burst} requests {@code keystrokeNanos} apart, {@code pauseNanos} between bursts. */
  private record Typing(int burst, long keystrokeNanos, long cancelAfterNanos, long pauseNanos) implements SessionSource {
    @Override
    public Conversation open(long session) {
      return new TypingConversation() {
        int sent;

        @Override
        public RequestSpec next(long id) {
          sent++;
          return new RequestSpec(id, new Prompt.Infill("def f(x):\n    return " + "x".repeat(sent), "\n"), 100, false,
              OptionalInt.of(10), new SessionTurn(session, sent));
        }

        @Override
        public long keystrokeNanos() {
          return sent < burst ? keystrokeNanos : -1;
        }

        @Override
        public long cancelAfterNanos() {
          return cancelAfterNanos;
        }

        @Override
        public long pauseNanos() {
          return pauseNanos;
        }

        @Override
        public boolean answered(RequestTimeline answer) {
          throw new AssertionError("the engine does not call answered for a typing session");
        }

        @Override
        public long thinkNanos() {
          throw new AssertionError("the engine does not call thinkNanos for a typing session");
        }

        @Override
        public End end() {
          return sent >= burst ? End.TURNS : null;
        }
      };
    }
  }

  private StageResult run(StagePlan plan, SessionSource source) {
    var endpoint = new ScriptedEndpoint(loop, REQUEST);
    StageRunner runner = new StageRunner(endpoint, plan, source, NO_TIMEOUTS, loop, (t, m) -> finished.add(t), null);
    CompletableFuture<Long> done = runner.start();
    assertThat(loop.runUntil(done::isDone)).isTrue();
    return runner.recorder().finish(done.join(), ClientCpu.UNKNOWN);
  }

  private Map<Long, List<RequestTimeline>> bySession() {
    return finished.stream()
        .sorted(Comparator.comparingLong(RequestTimeline::scheduledNanos))
        .collect(Collectors.groupingBy(t -> t.spec().turn().session(), TreeMap::new, Collectors.toList()));
  }

  @Test
  void eachKeystrokeSupersedesTheRequestBeforeItAndTheBurstsLastIsAwaitedThenThePause() {
    var plan = new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(9), 0, 0, 1);

    StageResult r = run(plan, new Typing(3, 50 * MS, 0, 300 * MS));

    Map<Long, List<RequestTimeline>> bursts = bySession();
    assertThat(bursts).hasSize(3);
    long previousEnd = -1;
    for (List<RequestTimeline> burst : bursts.values()) {
      assertThat(burst).extracting(t -> t.spec().turn().turn()).containsExactly(1, 2, 3);
      long first = burst.get(0).scheduledNanos();
      if (previousEnd >= 0) {
        assertThat(first).isEqualTo(previousEnd + 300 * MS); // the user's pause after the last answer
      }
      for (int k = 0; k < 3; k++) {
        RequestTimeline t = burst.get(k);
        assertThat(t.scheduledNanos()).isEqualTo(first + k * 50 * MS); // the user's clock, not the answers'
        if (k < 2) {
          // Cut by the next keystroke 50 ms in: before its first token (at 101 ms).
          assertThat(t.outcome()).isEqualTo(new Outcome.Cancelled(TypingConversation.SUPERSEDED));
          assertThat(t.endNanos()).isEqualTo(burst.get(k + 1).scheduledNanos());
          assertThat(t.chunkCount()).isZero();
        } else {
          assertThat(t.outcome().succeeded()).isTrue();
          assertThat(t.endNanos() - t.scheduledNanos()).isEqualTo(191 * MS);
        }
      }
      previousEnd = burst.get(2).endNanos();
    }

    Completions c = r.completions();
    assertThat(c.sent()).isEqualTo(9);
    assertThat(c.completed()).isEqualTo(3);
    assertThat(c.superseded()).isEqualTo(6);
    assertThat(c.cancelledAfter()).isZero();
    assertThat(c.failed()).isZero();
    assertThat(c.cancelledShare()).isEqualTo(6 / 9.0);
    assertThat(c.ttft().getTotalCount()).isEqualTo(3);
    assertThat(c.ttft().getValueAtPercentile(50)).isBetween(99 * MS, 101 * MS);
    // Cancellations are no failures: not in the request counts, not in the errors.
    assertThat(r.requests().failed()).isZero();
    assertThat(r.requests().completed()).isEqualTo(3);
    assertThat(r.errors()).isEmpty();
    assertThat(r.sessions().finished()).isEqualTo(3);
    assertThat(r.sessions().endedByError()).isZero();
  }

  @Test
  void aRequestThatAnswersBeforeTheNextKeystrokeCompletesAndCancelAfterCutsTheSlowOnes() {
    // Keystrokes 250 ms apart: each 191 ms request completes before the next is sent.
    var plan = new StagePlan(0, new LoadModel.Closed(2, 0), new StopCondition.Requests(8), 0, 0, 1);
    StageResult r = run(plan, new Typing(2, 250 * MS, 0, 0));
    assertThat(r.completions().completed()).isEqualTo(8);
    assertThat(r.completions().superseded()).isZero();

    finished.clear();
    // Cancelled 150 ms after issue, before its 191 ms: every request, none superseded.
    var plan2 = new StagePlan(1, new LoadModel.Closed(2, 0), new StopCondition.Requests(8), 0, 0, 1);
    StageResult cut = run(plan2, new Typing(2, 250 * MS, 150 * MS, 10 * MS));
    assertThat(finished).allSatisfy(t -> {
      assertThat(t.outcome()).isEqualTo(new Outcome.Cancelled(TypingConversation.CANCEL_AFTER));
      assertThat(t.endNanos() - t.scheduledNanos()).isEqualTo(150 * MS);
    });
    assertThat(cut.completions().cancelledAfter()).isEqualTo(8);
    assertThat(cut.completions().cancelledShare()).isEqualTo(1.0);
    assertThat(cut.errors()).isEmpty();
    assertThat(cut.sessions().endedByError()).isZero();
  }

  @Test
  void openLoopBurstsArriveAtTheRateAndTheirKeystrokesFollowOnTheUsersClock() {
    var plan = new StagePlan(0, new LoadModel.Open(2, new dev.tokenmeter.core.load.Arrivals.Constant(),
        OptionalInt.empty()), new StopCondition.Duration(2 * S), 0, 0, 1);
    StageResult r = run(plan, new Typing(4, 40 * MS, 0, 0));
    for (List<RequestTimeline> burst : bySession().values()) {
      for (int k = 1; k < burst.size(); k++) {
        assertThat(burst.get(k).scheduledNanos() - burst.get(k - 1).scheduledNanos()).isEqualTo(40 * MS);
      }
    }
    assertThat(r.completions().superseded()).isEqualTo(3 * r.completions().completed());
  }
}
