package dev.tokenmeter.proxy.dashboard;

import static dev.tokenmeter.proxy.dashboard.LiveBoardTest.T0;
import static dev.tokenmeter.proxy.dashboard.LiveBoardTest.failed;
import static dev.tokenmeter.proxy.dashboard.LiveBoardTest.req;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.request.ErrorClass;
import org.junit.jupiter.api.Test;

/** Warm-up and steady state of one upstream, minute by minute. */
class WarmUpTest {
  @Test
  void idleThenWarmingThenWarmWithTheTimeToTheFirstHealthyToken() {
    WarmUp w = new WarmUp();
    assertThat(w.view(T0, 0).state()).isEqualTo("idle");
    assertThat(w.view(T0, 1).detail()).isEqualTo("its first request is in flight");
    w.add(failed(T0, "t", "a", ErrorClass.CONNECT));
    BoardView.WarmUpView warming = w.view(T0 + 1_000, 0);
    assertThat(warming.state()).isEqualTo("warming");
    assertThat(warming.firstRequestEpochMs()).isEqualTo(T0);
    assertThat(warming.warmUpMs()).isNull();
    // started 2 s after the first request, first token 750 ms later
    w.add(req(T0 + 2_000, "t", "a", 5, 10, 750, 10, Double.NaN));
    BoardView.WarmUpView warm = w.view(T0 + 5_000, 0);
    assertThat(warm.state()).isEqualTo("warm");
    assertThat(warm.firstHealthyTokenEpochMs()).isEqualTo(T0 + 2_750);
    assertThat(warm.warmUpMs()).isEqualTo(2_750);
    assertThat(warm.detail()).isEqualTo("0 of the last 3 minutes had 5 or more completed requests");
  }

  /** Five requests ending in minute {@code m} (from T0) at {@code tpotMs} each. */
  private static void minute(WarmUp w, int m, double tpotMs) {
    for (int i = 0; i < 5; i++) {
      w.add(req(T0 + m * 60_000L + i * 1_000, "t", "a", 5, 10, 10, tpotMs, Double.NaN));
    }
  }

  @Test
  void steadyWhenTheLastThreeMinutesMediansAreWithinTenPercent() {
    WarmUp w = new WarmUp();
    minute(w, 0, 40); // 25 tok/s: a slow first minute, out of the last three below
    minute(w, 1, 20); // 50 tok/s
    minute(w, 2, 21); // 47.6 tok/s
    minute(w, 3, 20); // 50 tok/s: 47.6 to 50 is 5% apart
    BoardView.WarmUpView v = w.view(T0 + 4 * 60_000 + 1, 0);
    assertThat(v.state()).isEqualTo("steady");
    assertThat(v.minuteMedians()).hasSize(3);
    assertThat(v.minuteMedians().get(0)).isBetween(49.9, 50.1);
    assertThat(v.detail()).contains("within 10% apart");
    // one minute earlier the slow minute was among the last three: 25 vs 50 is not steady
    WarmUp early = new WarmUp();
    minute(early, 0, 40);
    minute(early, 1, 20);
    minute(early, 2, 21);
    BoardView.WarmUpView notYet = early.view(T0 + 3 * 60_000 + 1, 0);
    assertThat(notYet.state()).isEqualTo("warm");
    assertThat(notYet.detail()).contains("more than 10% apart");
  }

  @Test
  void aMinuteWithTooFewRequestsKeepsItFromSteady() {
    WarmUp w = new WarmUp();
    minute(w, 0, 20);
    minute(w, 1, 20);
    w.add(req(T0 + 2 * 60_000L, "t", "a", 5, 10, 10, 20, Double.NaN)); // one request in minute 2
    BoardView.WarmUpView v = w.view(T0 + 3 * 60_000 + 1, 0);
    assertThat(v.state()).isEqualTo("warm");
    assertThat(v.minuteMedians().get(2)).isNull();
    assertThat(v.detail()).startsWith("2 of the last 3 minutes");
  }

  @Test
  void oldMinutesAreForgotten() {
    WarmUp w = new WarmUp();
    minute(w, 10, 20);
    minute(w, 0, 20); // far older than the last minute seen: ignored
    minute(w, 11, 20);
    minute(w, 12, 20);
    assertThat(w.view(T0 + 13 * 60_000 + 1, 0).state()).isEqualTo("steady");
    assertThat(w.view(T0 + 20 * 60_000, 0).state()).isEqualTo("warm"); // no recent minutes
  }
}
