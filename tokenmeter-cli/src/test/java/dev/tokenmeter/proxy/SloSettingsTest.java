package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.governance.LiveSlo;
import dev.tokenmeter.governance.SloScope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SLOs in the settings file and flags, scoped, and every mistake named on its own line. */
class SloSettingsTest {

  @Test
  void slosComeFromTheFileOnePerObjectiveAndTheFlagsReplaceThem(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("keys.txt"), Tenants.hash("acme", "k1").line() + "\n");
    Path config = dir.resolve("proxy.yaml");
    Files.writeString(config, """
        upstreams: [{name: h100, url: "http://127.0.0.1:8000"}, {name: a100, url: "http://127.0.0.1:8001"}]
        tenants: {keys_file: keys.txt}
        slos:
          - {objective: "ttft.p99<=750ms,errors<=1%"}
          - {objective: "tps.p10>=30", model: "llama*", upstream: h100, tenant: acme}
        """);
    List<LiveSlo> slos = ProxySettings.read(config).resolve(Map.of()).slos();
    assertThat(slos).extracting(LiveSlo::name)
        .containsExactly("ttft.p99<=750ms", "errors<=1%", "tps.p10>=30 model=llama* upstream=h100 tenant=acme");
    assertThat(slos.get(2).scope()).isEqualTo(new SloScope("llama*", "h100", "acme"));
    assertThat(ProxySettings.read(config).resolveSlos()).hasSize(3);

    ProxySettings flags = new ProxySettings();
    flags.slos.add(ProxySettings.SloSpec.flag("tenant=acme; model=gpt-*: e2e.p95<=2560ms"));
    assertThat(ProxySettings.read(config).overriddenBy(flags).resolve(Map.of()).slos()).extracting(LiveSlo::name)
        .containsExactly("e2e.p95<=2560ms model=gpt-* tenant=acme");
    assertThat(ProxySettings.SloSpec.flag("errors<=1%")).isEqualTo(new ProxySettings.SloSpec("errors<=1%", null, null, null));
    assertThat(ProxyConfig.of(0, Upstream.parse("u", "http://127.0.0.1:1", null)).slos()).isEmpty();
  }

  @Test
  void eachMistakeIsOneLineNamingItAndTheFix(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("keys.txt"), Tenants.hash("acme", "k1").line() + "\n");
    ProxySettings s = new ProxySettings();
    s.upstreams.add(new ProxySettings.UpstreamSpec("h100", "http://127.0.0.1:8000", null));
    s.keysFile = dir.resolve("keys.txt").toString();
    for (String flag : List.of("ttft.p99<=800ms,errors<=1%", "errors<=1%", "ttft.mean<=1s", "ttft.p99<=nine",
        "upstream=b200: tps.p10>=30", "tenant=zeta: tps.p10>=30", "region=eu: tps.p10>=30", "model=: errors<=2%")) {
      s.slos.add(ProxySettings.SloSpec.flag(flag));
    }
    s.slos.add(new ProxySettings.SloSpec(null, null, null, null));
    assertThatThrownBy(() -> s.resolve(Map.of())).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("""
            8 mistakes in the proxy's settings:
              SLO 'errors<=1%' is given twice; keep one
              SLO 'ttft.mean': a mean cannot be judged request by request on live traffic; use a percentile such as ttft.p99
              --slo clause 'ttft.p99<=nine': 'nine' is not a non-negative number after <=
              SLO 'tps.p10>=30': no upstream 'b200'; upstreams: h100
              SLO 'tps.p10>=30': no tenant 'zeta' in the keys file; tenants: acme, anonymous
              --slo 'region=eu: tps.p10>=30': the scope before ':' takes model=GLOB;upstream=NAME;tenant=NAME, \
            e.g. 'tenant=acme;model=llama*: ttft.p99<=800ms'
              SLO 'errors<=2%': an empty model, upstream or tenant; leave it out to mean any
              SLO without an objective: write objective: "ttft.p99<=800ms,errors<=1%\"""".stripIndent().replace("            ", ""));
  }

  @Test
  void alertRulesNeedAnSlo() {
    assertThatThrownBy(() -> new ProxySettings().resolveSlos()).hasMessage(
        "no SLO: give --slo \"ttft.p99<=750ms,errors<=1%\" or a --config file with slos:");
  }
}
