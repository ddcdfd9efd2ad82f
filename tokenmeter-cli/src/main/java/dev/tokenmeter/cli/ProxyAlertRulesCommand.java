package dev.tokenmeter.cli;

import dev.tokenmeter.governance.LiveSlo;
import dev.tokenmeter.proxy.ProxySettings;
import dev.tokenmeter.telemetry.PrometheusRules;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tokenmeter proxy alert-rules}: the live SLOs as Prometheus alerting rules. */
@Command(
    name = "alert-rules",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Writes the Prometheus rules equivalent to the proxy's live SLO alerts.",
      "Over the proxy's own /metrics: recording rules of the bad share per window and the page (fast burn) and ticket (slow burn) alerts, for teams that run Alertmanager (docs/PROXY.md, SLOs and alerts). A latency or speed threshold must be a bucket boundary of its histogram."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter proxy alert-rules --slo 'ttft.p99<=750ms,errors<=1%%' \\",
      "      --out rules.yml",
      "  tokenmeter proxy alert-rules --config proxy.yaml --out rules.yml"
    })
final class ProxyAlertRulesCommand implements Callable<Integer> {
  @Option(names = "--slo", paramLabel = "[SCOPE:]OBJECTIVES", description = "As for tokenmeter proxy; repeatable.")
  List<String> slos = List.of();

  @Option(names = "--config", paramLabel = "FILE", description = "The proxy's settings file; its slos: are used (with --slo given too, those win).")
  Path config;

  @Option(names = "--out", required = true, paramLabel = "FILE", description = "Where to write the rules (YAML), e.g. rules.yml.")
  Path out;

  @Override
  public Integer call() throws IOException {
    ProxySettings flags = new ProxySettings();
    slos.forEach(o -> flags.slos.add(ProxySettings.SloSpec.flag(o)));
    ProxySettings settings = config == null ? flags : ProxySettings.read(config).overriddenBy(flags);
    List<LiveSlo> live = settings.resolveSlos();
    String yaml = PrometheusRules.yaml(live);
    Path parent = out.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(out, yaml, StandardCharsets.UTF_8);
    System.err.println("tokenmeter proxy alert-rules: " + live.size() + " SLOs, "
        + live.size() * 2 + " alerts written to " + out + "; check with: promtool check rules " + out);
    return 0;
  }
}
