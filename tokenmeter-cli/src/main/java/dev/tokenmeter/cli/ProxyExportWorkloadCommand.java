package dev.tokenmeter.cli;

import dev.tokenmeter.workload.WorkloadProfile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

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
final class ProxyExportWorkloadCommand extends ProxyLedgerReader {
  @Option(names = "--since", defaultValue = "7d", paramLabel = "WHEN",
      description = "Start of the window: 30m, 24h, 7d, 2026-11-24 or 2026-11-24T08:00:00Z. Default: ${DEFAULT-VALUE}.")
  String since;

  @Option(names = "--out", required = true, paramLabel = "FILE", description = "Where the profile goes (e.g. profile.json).")
  Path out;

  ProxyExportWorkloadCommand() {
    this(InstantSource.system(), System.getenv());
  }

  /** For tests: a fixed "now" and environment. */
  ProxyExportWorkloadCommand(InstantSource clock, Map<String, String> env) {
    super(clock, env);
  }

  @Override
  public Integer call() {
    Instant now = clock.instant();
    Instant from = ProxyUsageCommand.parseSince(since, now);
    WorkloadProfile.Builder b = new WorkloadProfile.Builder();
    open().workload(from, r -> b.add(r.startedAtEpochMillis(), r.model(), r.ok(), r.inputTokens(),
        r.outputTokens(), r.cachedTokens(), r.conversation(), r.endedAtEpochMillis()));
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
