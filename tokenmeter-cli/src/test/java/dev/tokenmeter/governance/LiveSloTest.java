package dev.tokenmeter.governance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.governance.LiveSlo.Judgement;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The translation of an objective into a per-request SLI and its error budget. */
class LiveSloTest {
  private static LiveSlo live(String spec, SloScope scope) {
    return LiveSlo.of(Slo.parse(spec).objectives().get(0), scope);
  }

  @Test
  void anUpperPercentileAllowsTheShareAboveIt() {
    LiveSlo s = live("ttft.p99<=800ms", SloScope.ALL);
    assertThat(s.budget()).isCloseTo(0.01, within(1e-12));
    assertThat(s.name()).isEqualTo("ttft.p99<=800ms");
    assertThat(s.sli()).isEqualTo("share of completed requests with TTFT <= 800 ms");
    assertThat(s.judge(SloRequests.ok("acme", "m", 800, 10))).isEqualTo(Judgement.GOOD);
    assertThat(s.judge(SloRequests.request("acme", "m", null, 800_000_001L, 1e7))).isEqualTo(Judgement.BAD);
    assertThat(s.judge(SloRequests.failed("acme", "m"))).as("errors are the errors SLO's").isEqualTo(Judgement.NOT_COUNTED);
    assertThat(s.judge(SloRequests.ok("acme", null, 1, 10))).as("no model: not inference").isEqualTo(Judgement.NOT_COUNTED);
    assertThat(live("ttft.p50<800ms", SloScope.ALL).judge(SloRequests.ok("a", "m", 800, 10))).isEqualTo(Judgement.BAD);
  }

  @Test
  void aLowerPercentileOfSpeedAllowsTheShareBelowIt() {
    LiveSlo s = live("tps.p10>=30", SloScope.ALL);
    assertThat(s.budget()).isCloseTo(0.10, within(1e-12));
    assertThat(s.name()).isEqualTo("tps.p10>=30");
    assertThat(s.judge(SloRequests.ok("a", "m", 100, 25))).isEqualTo(Judgement.GOOD); // 40 tok/s
    assertThat(s.judge(SloRequests.ok("a", "m", 100, 50))).isEqualTo(Judgement.BAD); // 20 tok/s
    assertThat(s.judge(SloRequests.ok("a", "m", 100, Double.NaN))).as("one token: no TPS").isEqualTo(Judgement.NOT_COUNTED);
    assertThat(live("tpot.p90<=50ms", SloScope.ALL).budget()).isCloseTo(0.10, within(1e-12));
    assertThat(live("e2e.p999<=2000ms", SloScope.ALL).budget()).isCloseTo(0.001, within(1e-12));
    assertThat(live("e2e.p95<=2s", SloScope.ALL).judge(SloRequests.ok("a", "m", 100, 10))).isEqualTo(Judgement.GOOD);
    assertThat(live("tpot.p50<=5ms", SloScope.ALL).judge(SloRequests.ok("a", "m", 100, 10))).isEqualTo(Judgement.BAD);
  }

  @Test
  void theErrorsObjectiveCountsEveryInferenceRequestInScope() {
    SloScope scope = new SloScope("llama*", null, "acme");
    LiveSlo s = live("errors<=1%", scope);
    assertThat(s.budget()).isCloseTo(0.01, within(1e-12));
    assertThat(s.name()).isEqualTo("errors<=1% model=llama* tenant=acme");
    assertThat(s.judge(SloRequests.failed("acme", "llama-3"))).isEqualTo(Judgement.BAD);
    assertThat(s.judge(SloRequests.ok("acme", "llama-3", 1, 1))).isEqualTo(Judgement.GOOD);
    assertThat(s.judge(SloRequests.failed("beta", "llama-3"))).isEqualTo(Judgement.NOT_COUNTED);
    assertThat(s.judge(SloRequests.request("acme", "llama-3", dev.tokenmeter.core.request.ErrorClass.CANCELLED, 5_000_000L,
        Double.NaN))).as("the client hung up").isEqualTo(Judgement.NOT_COUNTED);
    MeteredRequest overBudget = MeteredRequestBuilder.chat("acme", "llama-3", MeteredRequest.NO_UPSTREAM).id("r")
        .startedAt(0).streamed(false).failed(dev.tokenmeter.core.request.ErrorClass.HTTP_429, 429)
        .error("HTTP 429: refused by the proxy: over budget").inFlightAtStart(-1).build();
    assertThat(s.judge(overBudget)).as("the proxy's own policy refused it: not the service failing")
        .isEqualTo(Judgement.NOT_COUNTED);
    assertThat(s.judge(SloRequests.failed("acme", "gpt-4o"))).isEqualTo(Judgement.NOT_COUNTED);
    assertThat(new SloScope(null, "h100", null).matches(SloRequests.failed("a", "m"))).isFalse();
    assertThat(new SloScope("a.b?", null, null).matches(SloRequests.failed("x", "a.bc"))).isTrue();
    assertThat(new SloScope("a.b?", null, null).matches(SloRequests.failed("x", "axbc"))).as("a dot is a dot").isFalse();
  }

  @Test
  void objectivesWithoutAPerRequestMeaningAreRefusedWithTheFix() {
    for (String[] c : List.of(
        new String[] {"ttft.mean<=500ms", "use a percentile such as ttft.p99"},
        new String[] {"itl.p99<=50ms", "use ttft, ttft_sent, tpot, e2e, e2e_sent, tps or errors"},
        new String[] {"output_tps>=100", "not judged on live traffic"},
        new String[] {"errors>=1%", "write errors<=1%"},
        new String[] {"errors<=0%", "above 0% and below 100%"},
        new String[] {"ttft.p99[turn>=4]<=1s", "live traffic has no turn numbers: leave out [turn>=4]"})) {
      assertThatThrownBy(() -> live(c[0], SloScope.ALL)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(c[1]).hasMessageNotContaining("\n");
    }
  }
}
