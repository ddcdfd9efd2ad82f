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

/** The target counts as dead after 2 s of nothing but refused connections, 5 at least; once. */
class TargetWatchTest {
  private static final long MS = 1_000_000L;
  private final AtomicInteger passed = new AtomicInteger();
  private final AtomicInteger dead = new AtomicInteger();
  private final TargetWatch watch = new TargetWatch((t, m) -> passed.incrementAndGet(), dead::incrementAndGet);
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
    assertThat(watch.verdict()).contains("21 connection attempts in a row failed over 2.0 s (refused)");
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
}
