package dev.tokenmeter.cli;

import dev.tokenmeter.governance.DriftBaseline;
import dev.tokenmeter.governance.DriftCheck;
import dev.tokenmeter.governance.DriftReport;
import dev.tokenmeter.governance.DriftSample;
import dev.tokenmeter.workload.WorkloadProfile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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

  /** {@code tokenmeter proxy export-workload}: the observed workload as a profile for bench and simulate. */
  @Command(
      name = "export-workload",
      mixinStandardHelpOptions = true,
      description = {
        "Writes the workload the proxy observed in a window of its ledger, for bench and simulate to replay.",
        "Input and output lengths as 101 quantiles, arrival rate overall and by UTC hour, model mix and the cached share of prompt tokens, as JSON that 'bench' and 'simulate' read back with --workload FILE (docs/PROXY.md, Exporting the workload)."
      },
      footerHeading = "%nExamples:%n",
      footer = {
        "  tokenmeter proxy export-workload --ledger tokenmeter-ledger.db --since 7d \\",
        "      --out profile.json"
      })
  static final class ExportWorkload extends ProxyLedgerReader {
    @Option(names = "--since", defaultValue = "7d", paramLabel = "WHEN",
        description = "Start of the window: 30m, 24h, 7d, 2026-11-24 or 2026-11-24T08:00:00Z. Default: ${DEFAULT-VALUE}.")
    String since;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "Where the profile goes (e.g. profile.json).")
    Path out;

    ExportWorkload() {
      this(InstantSource.system(), System.getenv());
    }

    /** For tests: a fixed "now" and environment. */
    ExportWorkload(InstantSource clock, Map<String, String> env) {
      super(clock, env);
    }

    @Override
    public Integer call() {
      Instant now = clock.instant();
      Instant from = ProxyUsageCommand.parseSince(since, now);
      WorkloadProfile.Builder b = new WorkloadProfile.Builder();
      open().workload(from, r -> b.add(r.startedAtEpochMillis(), r.model(), r.ok(), r.inputTokens(),
          r.outputTokens(), r.cachedTokens()));
      if (b.completed() == 0) {
        throw emptyWindow(from);
      }
      WorkloadProfile p = b.build(from, now);
      try {
        Path abs = out.toAbsolutePath();
        Path tmp = Files.createTempFile(abs.getParent(), ".profile", ".tmp");
        Files.writeString(tmp, p.toJson(), StandardCharsets.UTF_8);
        Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        throw new UsageException("--out " + out + ": cannot write it (" + e.getMessage() + "); name a writable file");
      }
      PrintWriter w = spec.commandLine().getOut();
      int mid = p.input().quantiles().size() / 2;
      w.println(String.format(Locale.ROOT, "wrote %s: %d requests since %s; input median %d tokens, output median %d;"
          + " mean rate %s/s", out, p.requests(), from, p.input().quantiles().get(mid), p.output().quantiles().get(mid),
          Double.isNaN(p.meanRatePerSecond()) ? "unknown" : String.format(Locale.ROOT, "%.4g", p.meanRatePerSecond())));
      w.flush();
      return Main.EXIT_OK;
    }
  }
}
