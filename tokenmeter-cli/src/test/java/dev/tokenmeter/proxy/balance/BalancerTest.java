package dev.tokenmeter.proxy.balance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BalancerTest {
  private static final List<String> POOL = List.of("h100", "a100");
  private static final long SECOND = 1_000_000_000L;

  private final AtomicLong now = new AtomicLong(1_000 * SECOND);
  private final Ticker ticker = now::get;
  private final Map<String, Integer> inFlight = new HashMap<>(Map.of("h100", 0, "a100", 0));

  private TpsBalancer tps(Map<String, SeedCurve> seeds) {
    return (TpsBalancer) Balancer.of(
        new Balance(Balance.Policy.TPS, 30, 10 * SECOND, seeds), POOL, ticker);
  }

  private static MeteredRequest served(String upstream, int inFlightAtStart, double tps) {
    return MeteredRequestBuilder.chat("t", "m", upstream).tokens(10, 64, -1, -1)
        .times(0, 1_000_000, 1e9 / tps, 100_000_000).inFlightAtStart(inFlightAtStart).build();
  }

  private String pick(Balancer b) {
    return POOL.get(b.pick(POOL, inFlight::get));
  }

  private static SeedCurve seed(double... tpsAtOneTwoFour) {
    return new SeedCurve(Path.of("run"), List.of(new SeedCurve.Point(1, tpsAtOneTwoFour[0]),
        new SeedCurve.Point(2, tpsAtOneTwoFour[1]), new SeedCurve.Point(4, tpsAtOneTwoFour[2])));
  }

  @Test
  void roundRobinTakesTurnsAndLeastInFlightTheIdlest() {
    Balancer rr = Balancer.of(Balance.of(Balance.Policy.ROUND_ROBIN), POOL, ticker);
    assertThat(List.of(pick(rr), pick(rr), pick(rr))).containsExactly("h100", "a100", "h100");
    Balancer least = Balancer.of(Balance.of(Balance.Policy.LEAST_IN_FLIGHT), POOL, ticker);
    inFlight.put("h100", 3);
    inFlight.put("a100", 2);
    assertThat(pick(least)).isEqualTo("a100");
    inFlight.put("a100", 3);
    assertThat(pick(least)).isEqualTo("h100"); // a tie: the first
    rr.accept(served("h100", 0, 50)); // they learn nothing and take anything
    least.accept(served("a100", 0, 50));
  }

  @Test
  void theHighestPredictedTpsAtOneMoreRequestWins() {
    TpsBalancer b = tps(Map.of("h100", seed(200, 180, 150), "a100", seed(100, 95, 85)));
    assertThat(pick(b)).isEqualTo("h100");
    inFlight.put("h100", 3); // h100 at 4: 150 > a100 at 1: 100
    assertThat(pick(b)).isEqualTo("h100");
    inFlight.put("h100", 15); // 150 * sqrt(4/16) = 75 < 100
    assertThat(pick(b)).isEqualTo("a100");
    assertThat(b.curve("h100").predict(16)).isEqualTo(75);
    assertThat(b.curve("nope")).isNull();
  }

  @Test
  void liveTrafficMovesTheChoice() {
    TpsBalancer b = tps(Map.of("h100", seed(200, 180, 150), "a100", seed(100, 95, 85)));
    for (int i = 0; i < 30; i++) {
      b.accept(served("h100", 0, 40)); // h100 turns out slow at concurrency 1
    }
    assertThat(b.curve("h100").observations()).isEqualTo(30);
    assertThat(pick(b)).isEqualTo("a100");
  }

  @Test
  void coldUpstreamsAreExploredOneRequestAtATime() {
    TpsBalancer b = tps(Map.of("h100", seed(200, 180, 150)));
    assertThat(pick(b)).isEqualTo("a100"); // cold and idle: explored first
    inFlight.put("a100", 1); // exploring: counts as at the line, below h100's 200
    assertThat(pick(b)).isEqualTo("h100");
    inFlight.put("h100", 200); // h100 sinks below the line: the cold one is at the line
    assertThat(pick(b)).isEqualTo("a100");
  }

  @Test
  void aFailingUpstreamCoolsDownWhileAnotherStaysFluid() {
    TpsBalancer b = tps(Map.of("h100", seed(200, 180, 150), "a100", seed(100, 95, 85)));
    b.accept(MeteredRequestBuilder.chat("t", "m", "h100").failed(ErrorClass.HTTP_5XX, 503).build());
    assertThat(pick(b)).isEqualTo("a100");
    inFlight.put("a100", 400); // a100 far below the line: the cooling h100 above it is better
    assertThat(pick(b)).isEqualTo("h100");
    inFlight.put("a100", 0);
    now.addAndGet(11 * SECOND); // cooled down
    assertThat(pick(b)).isEqualTo("h100");
  }

  @Test
  void theClientsMistakesAndUnknownUpstreamsDoNotCount() {
    TpsBalancer b = tps(Map.of("h100", seed(200, 180, 150), "a100", seed(100, 95, 85)));
    b.accept(MeteredRequestBuilder.chat("t", "m", "h100").failed(ErrorClass.HTTP_4XX, 400).build());
    b.accept(MeteredRequestBuilder.chat("t", "m", "h100").failed(ErrorClass.CANCELLED, 200).build());
    b.accept(served("elsewhere", 0, 1));
    assertThat(pick(b)).isEqualTo("h100");
    b.accept(MeteredRequestBuilder.chat("t", "m", "h100").failed(ErrorClass.CONNECT, -1).build());
    assertThat(pick(b)).isEqualTo("a100");
  }

  @Test
  void bothBelowTheLineTheFasterHealthyOneWins() {
    TpsBalancer b = tps(Map.of("h100", seed(20, 18, 15), "a100", seed(10, 9, 8)));
    assertThat(pick(b)).isEqualTo("h100");
  }

  @Test
  void policiesAndSettingsAreChecked() {
    assertThat(Balance.Policy.parse(" Least-In-Flight ")).isEqualTo(Balance.Policy.LEAST_IN_FLIGHT);
    assertThat(Balance.Policy.TPS.flag()).isEqualTo("tps");
    assertThatThrownBy(() -> Balance.Policy.parse("fastest"))
        .hasMessage("balance 'fastest': write tps, round-robin or least-in-flight");
    assertThatThrownBy(() -> new Balance(Balance.Policy.TPS, 0, 1, Map.of()))
        .hasMessageContaining("fluid_tps must be a positive number");
    assertThatThrownBy(() -> new Balance(Balance.Policy.TPS, 30, -1, Map.of()))
        .hasMessageContaining("cool-down");
    assertThatThrownBy(() -> tps(Map.of("h200", seed(1, 1, 1))))
        .hasMessage("--tps-seed names no upstream: 'h200'");
  }
}
