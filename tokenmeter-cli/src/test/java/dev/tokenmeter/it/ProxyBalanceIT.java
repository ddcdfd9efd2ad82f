package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.proxy.Routing;
import dev.tokenmeter.proxy.TokenCounters;
import dev.tokenmeter.proxy.Upstream;
import dev.tokenmeter.proxy.balance.Balance;
import dev.tokenmeter.proxy.balance.SeedCurve;
import dev.tokenmeter.simulator.EngineTiming;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Routing by TPS curve against two simulated GPUs serving the same model (an H100 SXM and an A100
 * 40GB, Llama 3.1 8B): at the same closed-loop load, {@code --balance tps} sends most requests to
 * the faster GPU and raises the slow tail (p10) of per-user decode TPS over round-robin. The
 * figures it prints are those of docs/PROXY.md, "Routing by TPS curve".
 */
@Timeout(120)
class ProxyBalanceIT {
  static final String MODEL = "llama-3.1-8b";
  static final int USERS = 24;
  static final int REQUESTS = 300;
  static final int TOKENS = 64;

  @BeforeAll
  static void warmUp() {
    StageKit.warmUpOnce();
  }

  /** What one policy did: requests per upstream and per-user decode TPS over all requests. */
  record Outcome(Balance.Policy policy, Map<String, Long> byUpstream, double p10, double p50) {
    @Override
    public String toString() {
      return String.format("%-15s %s  per-user decode TPS p10 %.1f p50 %.1f tok/s",
          policy.flag(), byUpstream, p10, p50);
    }
  }

  static SimFixture sim(String gpu) {
    EngineTiming timing = new EngineTiming(EngineConfig.of(Presets.model(MODEL), Presets.gpu(gpu)), Ticker.system());
    return SimFixture.start(SimFixture.config(0, 0).timing(timing).maxModelLen(timing.maxModelLen()));
  }

  static Outcome run(Balance.Policy policy, SimFixture h100, SimFixture a100) {
    return run(Balance.of(policy), USERS, h100, a100);
  }

  static Outcome run(Balance balance, int users, SimFixture h100, SimFixture a100) {
    Balance.Policy policy = balance.policy();
    Map<String, Upstream> ups = new LinkedHashMap<>();
    ups.put("h100", Upstream.parse("h100", h100.baseUrl(), null));
    ups.put("a100", Upstream.parse("a100", a100.baseUrl(), null));
    Routing routing = new Routing(ups, List.of(), null, balance);
    try (ProxyFixture proxy = ProxyFixture.start(h100.baseUrl(), c -> c.withRouting(routing), TokenCounters.none())) {
      StageKit.run(StageKit.stage(proxy.baseUrl()).closed(users).requests(REQUESTS).maxTokens(TOKENS)
          .stageLimitMillis(60_000));
      List<MeteredRequest> records = proxy.awaitRecords(REQUESTS);
      assertThat(records).allMatch(MeteredRequest::ok);
      double[] tps = records.stream().mapToDouble(MeteredRequest::decodeTokensPerSecond)
          .filter(x -> !Double.isNaN(x)).sorted().toArray();
      assertThat(tps).hasSizeGreaterThan(REQUESTS * 9 / 10);
      Map<String, Long> by = records.stream()
          .collect(Collectors.groupingBy(MeteredRequest::upstream, LinkedHashMap::new, Collectors.counting()));
      return new Outcome(policy, by, quantile(tps, 0.10), quantile(tps, 0.50));
    }
  }

  /** The nearest-rank quantile of sorted values. */
  static double quantile(double[] sorted, double q) {
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  @Test
  void tpsRoutingSplitsByCapacityAndLiftsTheSlowTailOverRoundRobin() {
    try (SimFixture h100 = sim("h100-sxm"); SimFixture a100 = sim("a100-40gb")) {
      Outcome rr = run(Balance.Policy.ROUND_ROBIN, h100, a100);
      Outcome tps = run(Balance.Policy.TPS, h100, a100);
      System.out.println("ProxyBalanceIT (" + USERS + " users, " + REQUESTS + " requests of " + TOKENS
          + " tokens):\n  " + rr + "\n  " + tps);
      assertThat(rr.byUpstream().get("h100")).isBetween((long) REQUESTS / 2 - 1, (long) REQUESTS / 2 + 1);
      // The H100 has about 2.2x the A100 40GB's memory bandwidth: it should take most requests.
      assertThat(tps.byUpstream().get("h100")).isGreaterThan(REQUESTS * 2L / 3);
      assertThat(tps.byUpstream().getOrDefault("a100", 0L)).isPositive(); // explored, not ignored
      assertThat(tps.p10()).isGreaterThan(rr.p10() * 1.2);
    }
  }


  @Test
  void seedsFromSimulatedBenchRunsSkipTheColdStart(@TempDir Path dir) {
    String[] plan = {"--model", MODEL, "--output-tokens", String.valueOf(TOKENS), "--concurrency", "1,16,64",
        "--duration", "3s", "--warmup", "1s", "--cooldown", "0s"};
    Cli.simulate(dir.resolve("h100"), plan, "--gpu", "h100-sxm");
    Cli.simulate(dir.resolve("a100"), plan, "--gpu", "a100-40gb");
    Map<String, SeedCurve> seeds = Map.of(
        "h100", SeedCurve.read("h100", dir.resolve("h100")), "a100", SeedCurve.read("a100", dir.resolve("a100")));
    assertThat(seeds.get("h100").points()).extracting(SeedCurve.Point::concurrency).containsExactly(1, 16, 64);
    Balance seeded = new Balance(Balance.Policy.TPS, Balance.DEFAULT_FLUID_TPS, Balance.DEFAULT_COOL_DOWN_NANOS, seeds);
    try (SimFixture h100 = sim("h100-sxm"); SimFixture a100 = sim("a100-40gb")) {
      Outcome rr = run(Balance.of(Balance.Policy.ROUND_ROBIN), 64, h100, a100);
      Outcome tps = run(seeded, 64, h100, a100);
      System.out.println("ProxyBalanceIT seeded (64 users, " + REQUESTS + " requests of " + TOKENS
          + " tokens):\n  " + rr + "\n  " + tps + "\n  seeds " + seeds.values().stream()
              .map(SeedCurve::points).toList());
      assertThat(tps.byUpstream().get("h100")).isGreaterThan(REQUESTS * 2L / 3);
      assertThat(tps.p10()).isGreaterThan(rr.p10() * 1.2);
    }
  }
}
