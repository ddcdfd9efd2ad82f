package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.proxy.balance.Balance;
import dev.tokenmeter.proxy.balance.SeedCurve;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BalanceSettingsTest {
  private static final String SWEEP = """
      {"sweep": {"load_kind": "concurrency", "points": [
        {"load": 1, "decode_tps_p50": 210.5}, {"load": 8, "decode_tps_p50": 180},
        {"load": 32, "decode_tps_p50": null}]}}
      """;

  private static ProxySettings two(String balance) {
    ProxySettings s = new ProxySettings();
    s.upstreams.add(new ProxySettings.UpstreamSpec("h100", "http://127.0.0.1:9001", null));
    s.upstreams.add(new ProxySettings.UpstreamSpec("a100", "http://127.0.0.1:9002", null));
    s.balance = balance;
    return s;
  }

  @Test
  void aConfigFileNamesThePoolThePolicyAndTheSeeds(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("h100-run"));
    Files.writeString(dir.resolve("h100-run/summary.json"), SWEEP);
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        upstreams:
          - {name: h100, url: http://127.0.0.1:9001}
          - {name: a100, url: http://127.0.0.1:9002}
          - {name: openai, url: http://127.0.0.1:9003}
        routes:
          - {model: "llama-*", upstream: "h100, a100"}
        balance: tps
        fluid_tps: 25
        tps_seeds: {h100: h100-run}
        """);
    Routing r = ProxySettings.read(config).resolve(Map.of()).routing();
    Balance b = r.balanceOrNull();
    assertThat(b.policy()).isEqualTo(Balance.Policy.TPS);
    assertThat(b.fluidTps()).isEqualTo(25);
    assertThat(b.seeds().get("h100").points())
        .containsExactly(new SeedCurve.Point(1, 210.5), new SeedCurve.Point(8, 180));
    DefaultHttpHeaders none = new DefaultHttpHeaders();
    assertThat(r.pool("llama-3.1-8b", none)).containsExactly("h100", "a100");
    assertThat(r.pool("gpt-4o", none)).containsExactly("h100", "a100", "openai"); // no route: all
    assertThat(r.route("llama-3.1-8b", none).name()).isEqualTo("h100");
  }

  @Test
  void aPoolWithoutABalancePolicyTakesTurns() {
    ProxySettings s = two(null);
    s.routes.add(new ProxySettings.RouteSpec("m*", "h100,a100"));
    Routing r = s.resolve(Map.of()).routing();
    assertThat(r.balanceOrNull().policy()).isEqualTo(Balance.Policy.ROUND_ROBIN);
    assertThat(r.pool("x", new DefaultHttpHeaders())).containsExactly("h100"); // unmatched: the first
    assertThat(r.pool("x", new DefaultHttpHeaders().set("x-up", "a100"))).isEqualTo(List.of("h100"));
  }

  @Test
  void flagsWinOverTheFile(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, "balance: tps\nfluid_tps: 25\n");
    ProxySettings flags = two("tps");
    flags.fluidTps = 40.0;
    Balance b = ProxySettings.read(config).overriddenBy(flags).resolve(Map.of()).routing().balanceOrNull();
    assertThat(b.fluidTps()).isEqualTo(40);
    flags.balance = "least-in-flight";
    flags.fluidTps = null;
    assertThatThrownBy(() -> ProxySettings.read(config).overriddenBy(flags).resolve(Map.of()))
        .hasMessageContaining("only work with --balance tps, not least-in-flight"); // the file's 25 stays
  }

  @Test
  void badBalanceSettingsAreRefusedOneLineEach(@TempDir Path dir) throws Exception {
    ProxySettings one = new ProxySettings();
    one.upstreams.add(new ProxySettings.UpstreamSpec(null, "http://127.0.0.1:9001", null));
    one.balance = "tps";
    assertThatThrownBy(() -> one.resolve(Map.of()))
        .hasMessageContaining("--balance tps needs two or more upstreams serving the same model");

    Files.createDirectories(dir.resolve("empty"));
    ProxySettings s = two("tps");
    s.tpsSeeds.put("h100", dir.resolve("empty").toString());
    s.tpsSeeds.put("h200", dir.toString());
    s.routes.add(new ProxySettings.RouteSpec("m*", "h100,b200"));
    assertThatThrownBy(() -> s.resolve(Map.of()))
        .hasMessageContaining("3 mistakes")
        .hasMessageContaining("--tps-seed h100=" + dir.resolve("empty") + ": no summary.json there;")
        .hasMessageContaining("--tps-seed h200=" + dir + " names no upstream; upstreams: h100, a100")
        .hasMessageContaining("route 'm*=h100,b200' names no upstream");

    ProxySettings unknown = two("fastest");
    assertThatThrownBy(() -> unknown.resolve(Map.of())).hasMessageContaining("balance 'fastest': write tps");
    ProxySettings seedOnly = two(null);
    seedOnly.tpsSeeds.put("h100", dir.toString());
    assertThatThrownBy(() -> seedOnly.resolve(Map.of()))
        .hasMessageContaining("--tps-seed only works with --balance tps");
    ProxySettings fluidRr = two("round-robin");
    fluidRr.fluidTps = 30.0;
    assertThatThrownBy(() -> fluidRr.resolve(Map.of()))
        .hasMessageContaining("only work with --balance tps, not round-robin");
    ProxySettings fluidZero = two("tps");
    fluidZero.fluidTps = -1.0;
    assertThatThrownBy(() -> fluidZero.resolve(Map.of())).hasMessageContaining("--fluid-tps -1.0: write a positive");
  }

  @Test
  void aSeedMustHoldAClosedLoopCurve(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("summary.json"), "{\"sweep\": {\"load_kind\": \"rate\", \"points\": []}}");
    assertThatThrownBy(() -> SeedCurve.read("a", dir)).hasMessageContaining("no closed-loop curve");
    Files.writeString(dir.resolve("summary.json"), "{\"sweep\": {\"load_kind\": \"concurrency\", \"points\": [{\"load\": 1}]}}");
    assertThatThrownBy(() -> SeedCurve.read("a", dir)).hasMessageContaining("no point with a per-user decode TPS");
    Files.writeString(dir.resolve("summary.json"), "{not json");
    assertThatThrownBy(() -> SeedCurve.read("a", dir)).hasMessageContaining("summary.json is not JSON");
    Path config = dir.resolve("bad.yaml");
    Files.writeString(config, "fluid_tps: fast\ntps_seeds: [a]\n");
    assertThatThrownBy(() -> ProxySettings.read(config).resolve(Map.of()))
        .hasMessageContaining("fluid_tps: expected a number of tokens/s, got 'fast'")
        .hasMessageContaining("tps_seeds: expected a mapping");
  }
}
