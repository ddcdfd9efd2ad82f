package dev.tokenmeter.cli;

import dev.tokenmeter.governance.DriftBaseline;
import dev.tokenmeter.governance.DriftCheck;
import dev.tokenmeter.governance.DriftReport;
import dev.tokenmeter.governance.DriftSample;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tokenmeter proxy drift}: the proxy's drift report for a window of the ledger. Wiring only:
 * the ledger reads, {@link DriftCheck} decides, {@link DriftReport#lines} words it.
 */
@Command(
    name = "drift",
    mixinStandardHelpOptions = true,
    description = {
      "Compares a window of the proxy's ledger with a bench run's workload, in words.",
      "Input and output lengths (two-sample KS and PSI), model mix (PSI) and concurrency, with the statistics (docs/PROXY.md, Drift). The same report the proxy's --baseline raises live."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter proxy drift --ledger tokenmeter-ledger.db \\",
      "      --baseline results/RUN --since 24h"
    })
final class ProxyDriftCommand extends ProxyLedgerReader {
  @Option(names = "--baseline", required = true, paramLabel = "DIR", description = "A bench run's folder (summary.json, and requests.jsonl when there).")
  Path baseline;

  @Option(names = "--since", defaultValue = "24h", paramLabel = "WHEN",
      description = "Start of the window: 30m, 24h, 7d, 2026-11-24 or 2026-11-24T08:00:00Z. Default: ${DEFAULT-VALUE}.")
  String since;

  ProxyDriftCommand() {
    this(InstantSource.system(), System.getenv());
  }

  /** For tests: a fixed "now" and environment. */
  ProxyDriftCommand(InstantSource clock, Map<String, String> env) {
    super(clock, env);
  }

  @Override
  public Integer call() {
    DriftBaseline base = DriftOptions.baseline(baseline);
    Instant now = clock.instant();
    Instant from = ProxyUsageCommand.parseSince(since, now);
    List<DriftSample.Request> requests = new ArrayList<>();
    open().workload(from, r -> {
      if (r.ok() && r.model() != null) { // as the live monitor: no failures, no model listings
        requests.add(new DriftSample.Request(r.startedAtEpochMillis(), r.model(), r.inputTokens(), r.outputTokens(),
            r.inFlightAtStart()));
      }
    });
    if (requests.isEmpty()) {
      throw emptyWindow(from);
    }
    DriftReport report = DriftCheck.compare(base, DriftSample.of(requests), now);
    PrintWriter out = spec.commandLine().getOut();
    out.println("drift of " + ledger + " since " + from + " against " + base.source() + ":");
    report.lines().forEach(out::println);
    out.flush();
    return Main.EXIT_OK;
  }
}
