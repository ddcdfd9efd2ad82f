package dev.tokenmeter.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The target counts as dead after 2 s of nothing but refused connections, 5 at least; a stage whose
 * first 10 requests fail the same way is stopped; each once.
 */
class TargetWatchTest {
  private static final long MS = 1_000_000L;
  private final AtomicInteger passed = new AtomicInteger();
  private final AtomicInteger dead = new AtomicInteger();
  private TargetWatch watch = new TargetWatch((t, m) -> passed.incrementAndGet(), TargetWatch.FIRST_FAILURES,
      v -> dead.incrementAndGet());
  private long id;

  private void end(Outcome outcome, long atMillis) {
    RequestTimeline t = new RequestTimeline(
        new RequestSpec(id++, new Prompt.Text("hi"), 1, true, OptionalInt.empty()), 0, Phase.MEASURED, 0);
    t.end(outcome, atMillis * MS);
    watch.accept(t, RequestMetrics.of(t, null));
  }

  @Test
  void twoSecondsOfRefusedConnectionsIsADeadTarget() {
    for (long at = 0; at <= 2_000; at += 100) {
      end(new Outcome.ConnectFailed("refused"), at);
    }
    assertThat(passed).hasValue(21);
    assertThat(dead).hasValue(1);
    assertThat(watch.verdict()).isInstanceOfSatisfying(TargetWatch.Unreachable.class,
        u -> assertThat(u.describe()).isEqualTo("21 connection attempts in a row failed over 2.0 s (refused)"));
    end(new Outcome.ConnectFailed("refused"), 2_100);
    assertThat(dead).as("once").hasValue(1);
  }

  @Test
  void anythingButAConnectFailureOrTheToolsCancelStartsOver() {
    for (long at = 0; at < 1_900; at += 100) {
      end(new Outcome.ConnectFailed("refused"), at);
    }
    end(new Outcome.Cancelled("stage end"), 1_900);
    end(new Outcome.HttpError(503, ""), 1_950);
    for (long at = 2_000; at < 3_900; at += 100) {
      end(new Outcome.ConnectFailed("refused"), at);
    }
    assertThat(dead).hasValue(0);
    assertThat(watch.verdict()).isNull();
  }

  @Test
  void fewerThanFiveFailuresAreNotEnoughHoweverLong() {
    for (long at = 0; at < 8_000; at += 2_000) {
      end(new Outcome.ConnectFailed("refused"), at);
    }
    assertThat(dead).as("4 failures over 6 s").hasValue(0);
    end(new Outcome.ConnectFailed("refused"), 8_000);
    assertThat(dead).as("the 5th").hasValue(1);
  }

  private static final String NO_MODEL = "{\"error\":{\"message\":\"The model `x` does not exist.\",\"code\":404}}";

  @Test
  void theFirstTenRequestsFailingAlikeStopTheStageOnce() {
    for (int i = 0; i < 9; i++) {
      end(new Outcome.HttpError(404, NO_MODEL), i);
    }
    assertThat(dead).as("9 are not enough").hasValue(0);
    end(new Outcome.Cancelled("stage end"), 9); // the tool's own: neither counts nor breaks the run
    end(new Outcome.ConnectFailed("refused"), 9);
    end(new Outcome.HttpError(404, NO_MODEL), 10);
    assertThat(dead).hasValue(1);
    assertThat(watch.verdict()).isInstanceOfSatisfying(TargetWatch.Rejected.class, r -> {
      assertThat(r.count()).isEqualTo(10);
      assertThat(r.first()).isEqualTo(new Outcome.HttpError(404, NO_MODEL));
    });
    for (int i = 0; i < 20; i++) {
      end(new Outcome.HttpError(404, NO_MODEL), 11 + i);
    }
    assertThat(dead).as("once").hasValue(1);
  }

  @Test
  void digitsDoNotMakeFailuresDiffer() {
    for (int i = 0; i < 10; i++) {
      end(new Outcome.StreamError("request " + i + " failed: context length 4096 exceeded by " + (i * 7)), i);
    }
    assertThat(dead).hasValue(1);
  }

  @Test
  void aSuccessATimeoutOrADifferentFailureFirstEndsTheRuleForTheStage() {
    end(new Outcome.Completed("stop"), 0);
    for (int i = 1; i <= 30; i++) {
      end(new Outcome.HttpError(404, NO_MODEL), i);
    }
    assertThat(dead).as("after a success").hasValue(0);

    fresh(10);
    end(new Outcome.TimedOut(dev.tokenmeter.core.request.TimeoutKind.FIRST_TOKEN), 0);
    for (int i = 1; i <= 30; i++) {
      end(new Outcome.HttpError(404, NO_MODEL), i);
    }
    assertThat(dead).as("after a timeout: slow is not wrong").hasValue(0);

    fresh(10);
    for (int i = 0; i < 5; i++) {
      end(new Outcome.HttpError(404, NO_MODEL), i);
    }
    end(new Outcome.HttpError(400, "{\"message\":\"max_tokens too large\"}"), 5);
    for (int i = 6; i <= 30; i++) {
      end(new Outcome.HttpError(404, NO_MODEL), i);
    }
    assertThat(dead).as("two ways of failing").hasValue(0);
    assertThat(watch.firstFailure()).isEqualTo(new Outcome.HttpError(404, NO_MODEL));
  }

  @Test
  void zeroTurnsTheRuleOffAndAnyCountCanBeGiven() {
    fresh(0);
    for (int i = 0; i < 100; i++) {
      end(new Outcome.HttpError(404, NO_MODEL), i);
    }
    assertThat(dead).hasValue(0);
    fresh(3);
    for (int i = 0; i < 3; i++) {
      end(new Outcome.ProtocolError("not JSON"), i);
    }
    assertThat(dead).hasValue(1);
  }

  private void fresh(int firstFailures) {
    dead.set(0);
    watch = new TargetWatch((t, m) -> passed.incrementAndGet(), firstFailures, v -> dead.incrementAndGet());
  }
}
