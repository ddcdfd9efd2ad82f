package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code tokenmeter proxy alert-rules} and {@code tokenmeter proxy --slo}, as the command line reads them. */
class ProxyAlertRulesCommandTest {
  @TempDir Path dir;

  private CommandHarness.Run run(String... args) {
    return CommandHarness.run(new ProxyAlertRulesCommand(), args);
  }

  @Test
  void writesTheRulesOfTheFlagsOrOfTheConfigsSlos() throws Exception {
    Path out = dir.resolve("deep/rules.yml");
    assertThat(run("--slo", "ttft.p99<=750ms,errors<=1%", "--slo", "tenant=acme: tpot.p90<=50ms", "--out", out.toString())
        .exit()).isZero();
    String rules = Files.readString(out);
    assertThat(rules).startsWith("groups:").contains("alert: TokenmeterSloFastBurn", "slo: ttft.p99<=750ms",
        "tokenmeter:slo_bad_ratio:rate3d");

    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        upstreams: [{name: h100, url: "http://127.0.0.1:8000"}]
        slos: [{objective: "e2e.p95<=2560ms", upstream: h100}]
        """);
    assertThat(run("--config", config.toString(), "--out", out.toString()).exit()).isZero();
    assertThat(Files.readString(out)).contains("slo: e2e.p95<=2560ms upstream=h100").doesNotContain("ttft");
  }

  @Test
  void aThresholdOffTheBucketsOrABadScopeExitsTwoWithOneLineEach() throws Exception {
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        upstreams: [{name: h100, url: "http://127.0.0.1:8000"}]
        slos: [{objective: "errors<=1%", upstream: b200}]
        """);
    CommandHarness.Run r = run("--config", config.toString(), "--out", dir.resolve("r.yml").toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("tokenmeter: SLO 'errors<=1%': no upstream 'b200'; upstreams: h100" + System.lineSeparator());

    CommandHarness.Run off = run("--slo", "ttft.p99<=800ms", "--out", dir.resolve("r.yml").toString());
    assertThat(off.exit()).isEqualTo(2);
    assertThat(off.err()).contains("800 ms is not a bucket boundary", "750, 1000").doesNotContain("Exception");
    assertThat(dir.resolve("r.yml")).doesNotExist();
  }

  @Test
  void theProxysSloFlagIsScopedAndRepeatable() {
    ProxyCommand c = new ProxyCommand();
    new CommandLine(c).parseArgs("--upstream", "http://127.0.0.1:8000", "--slo", "errors<=1%",
        "--slo", "model=llama*;tenant=acme: tps.p10>=30");
    assertThat(c.settings().resolve(java.util.Map.of()).slos()).extracting(s -> s.name())
        .containsExactly("errors<=1%", "tps.p10>=30 model=llama* tenant=acme");
  }
}
