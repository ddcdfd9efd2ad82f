package dev.tokenmeter.core.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.Sessions;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The runner's session state machine ({@code bench --turns}), in virtual time. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StageRunnerSessionsTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long T0 = 5 * S;
  private static final Timeouts NO_TIMEOUTS = new Timeouts(0, 0, 0);
  /** Sent after 1 ms, first token 100 ms later, 10 tokens 10 ms apart: a turn takes 191 ms. */
  private static final Script TURN = new Script(MS, 100 * MS, 10 * MS, 10);

  private final VirtualLoop loop = new VirtualLoop(T0);
  private final List<RequestTimeline> finished = new ArrayList<>();

  /**
   * Sessions of {@code turns} turns, {@code thinkNanos} apart; a session whose prompt would pass
   * {@code maxTurnsInContext} turns ends by max context. Each turn's prompt grows by one message.
   */
  private record Fake(int turns, long thinkNanos, int maxTurnsInContext, List<String> answers) implements SessionSource {
    Fake(int turns, long thinkNanos) {
      this(turns, thinkNanos, Integer.MAX_VALUE, new ArrayList<>());
    }

    @Override
    public Conversation open(long session) {
      return new Conversation() {
        int turn;
        End end;

        @Override
        public RequestSpec next(long id) {
          turn++;
          return new RequestSpec(id, new Prompt.Text("turn " + turn), turn * 100, false, OptionalInt.of(10),
              new SessionTurn(session, turn));
        }

        @Override
        public boolean answered(RequestTimeline answer) {
          answers.add(session + ":" + turn + ":" + answer.content());
          if (turn >= turns) {
            end = End.TURNS;
          } else if (turn + 1 > maxTurnsInContext) {
            end = End.MAX_CONTEXT;
          }
          return end == null;
        }

        @Override
        public long thinkNanos() {
          return thinkNanos;
        }

        @Override
        public End end() {
          return end;
        }
      };
    }
  }

  private StageResult run(ScriptedEndpoint endpoint, StagePlan plan, SessionSource source) {
    StageRunner runner = new StageRunner(endpoint, plan, source, NO_TIMEOUTS, loop, (t, m) -> finished.add(t), null);
    CompletableFuture<Long> done = runner.start();
    assertThat(loop.runUntil(done::isDone)).isTrue();
    return runner.recorder().finish(done.join(), ClientCpu.UNKNOWN);
  }

  private Map<Long, List<RequestTimeline>> bySession() {
    return finished.stream()
        .sorted(Comparator.comparingLong(RequestTimeline::scheduledNanos))
        .collect(Collectors.groupingBy(t -> t.spec().turn().session(), java.util.TreeMap::new, Collectors.toList()));
  }

  @Test
  void closedLoopUsersRunSessionsTurnByTurnWithTheThinkTimeBetweenTurnsAndANewSessionAtOnce() {
    var endpoint = new ScriptedEndpoint(loop, TURN);
    var plan = new StagePlan(0, new LoadModel.Closed(2, 0), new StopCondition.Requests(12), 0, 0, 1);

    StageResult r = run(endpoint, plan, new Fake(3, 100 * MS));

    assertThat(finished).hasSize(12);
    assertThat(endpoint.peakInFlight()).isEqualTo(2);
    Map<Long, List<RequestTimeline>> sessions = bySession();
    assertThat(sessions).hasSize(4);
    for (List<RequestTimeline> turns : sessions.values()) {
      assertThat(turns).extracting(t -> t.spec().turn().turn()).containsExactly(1, 2, 3);
      for (int k = 1; k < turns.size(); k++) {
        // The next turn is planned one think time after the last one ended.
        assertThat(turns.get(k).scheduledNanos()).isEqualTo(turns.get(k - 1).endNanos() + 100 * MS);
      }
    }
    // User 0 runs sessions 0 then 2: the second starts at once when the first ended.
    assertThat(sessions.get(2L).get(0).scheduledNanos()).isEqualTo(sessions.get(0L).get(2).endNanos());
    Sessions s = r.sessions();
    assertThat(s.started()).isEqualTo(4);
    assertThat(s.finished()).isEqualTo(4);
    assertThat(s.endedByError()).isZero();
    assertThat(s.inProgressAtEnd()).isZero();
    assertThat(s.turns().getMean()).isEqualTo(3.0);
    // Three turns of 191 ms and two think times of 100 ms.
    assertThat(s.duration().getMaxValue()).isBetween(772 * MS, 774 * MS);
    assertThat(s.byTurn()).extracting(Sessions.ByTurn::label).containsExactly("1", "2", "3");
    assertThat(s.byTurn()).allSatisfy(t -> assertThat(t.requests()).isEqualTo(4));
  }

  @Test
  void aFailedTurnEndsItsSessionCountedAndTheUserStartsANewOne() {
    // Session 0's second turn cannot connect; everything else is answered.
    Function<RequestSpec, Script> scripts = spec ->
        spec.turn().session() == 0 && spec.turn().turn() == 2 ? new Script(MS, 0, 0, -2) : TURN;
    var endpoint = new ScriptedEndpoint(loop, scripts);
    var plan = new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(5), 0, 0, 1);

    StageResult r = run(endpoint, plan, new Fake(3, 0));

    Map<Long, List<RequestTimeline>> sessions = bySession();
    assertThat(sessions.get(0L)).extracting(t -> t.spec().turn().turn()).containsExactly(1, 2);
    assertThat(sessions.get(1L)).extracting(t -> t.spec().turn().turn()).containsExactly(1, 2, 3);
    assertThat(r.sessions().endedByError()).isEqualTo(1);
    assertThat(r.sessions().finished()).isEqualTo(1);
    // The failed turn's answer was never appended: session 0 had one answer, session 1 three.
    assertThat(finished).hasSize(5);
  }

  @Test
  void aSessionWhoseNextPromptWouldPassTheContextLimitEndsCountedByMaxContext() {
    var endpoint = new ScriptedEndpoint(loop, TURN);
    var plan = new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(6), 0, 0, 1);
    var fake = new Fake(5, 0, 2, new ArrayList<>());

    StageResult r = run(endpoint, plan, fake);

    assertThat(bySession()).hasSize(3).allSatisfy((id, turns) -> assertThat(turns).hasSize(2));
    assertThat(r.sessions().endedByMaxContext()).isEqualTo(3);
    assertThat(r.sessions().finished()).isZero();
    assertThat(fake.answers()).first().isEqualTo("0:1: tok tok tok tok tok tok tok tok tok tok");
  }

  @Test
  void openLoopArrivalsStartSessionsWhoseLaterTurnsFollowTheirThinkTimeNotTheArrivals() {
    var endpoint = new ScriptedEndpoint(loop, TURN);
    var open = new LoadModel.Open(2, new Arrivals.Constant(), OptionalInt.empty());
    // Arrivals at 0, 0.5, 1.0, 1.5 s; the window is 2 s and the cool-down long enough for every turn.
    var plan = new StagePlan(0, open, new StopCondition.Duration(2 * S), 0, 2 * S, 1);

    StageResult r = run(endpoint, plan, new Fake(2, 300 * MS));

    Map<Long, List<RequestTimeline>> sessions = bySession();
    // Arrivals in [0, 4 s): 8 sessions, each of two turns, the last ones cut by the stage end.
    assertThat(sessions.keySet()).contains(0L, 1L, 2L, 3L);
    for (long id = 0; id < 4; id++) {
      List<RequestTimeline> turns = sessions.get(id);
      assertThat(turns.get(0).scheduledNanos() - T0).isEqualTo(id * 500 * MS);
      assertThat(turns).hasSize(2);
      assertThat(turns.get(1).scheduledNanos()).isEqualTo(turns.get(0).endNanos() + 300 * MS);
    }
    assertThat(r.sessions().started()).isEqualTo(sessions.size());
    assertThat(r.sessions().finished() + r.sessions().inProgressAtEnd()).isEqualTo(r.sessions().started());
  }
}
