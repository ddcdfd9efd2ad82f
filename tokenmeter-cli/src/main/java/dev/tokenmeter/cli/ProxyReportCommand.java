package dev.tokenmeter.cli;

import dev.tokenmeter.core.production.InFlightCurve;
import dev.tokenmeter.core.production.ProductionSummary;
import dev.tokenmeter.report.ProductionJsonWriter;
import dev.tokenmeter.report.ProductionWords;
import dev.tokenmeter.report.html.ProductionHtml;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tokenmeter proxy report}: a window of the proxy's ledger as report.html and
 * production.json. Wiring only: the ledger reads, {@link ProductionSummary} computes, the report
 * package renders.
 */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description = {
      "Renders a window of the metering proxy's ledger as report.html and production.json.",
      "The answer in words, per-user TPS against the concurrency in flight at each request's start and its knee, TTFT and TPOT against load, tokens and spend per tenant, errors over time (docs/PROXY.md)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter proxy report --since 24h --out results/production"
    })
final class ProxyReportCommand implements Callable<Integer> {
  @Option(
      names = "--ledger",
      defaultValue = ProxyCommand.DEFAULT_LEDGER,
      paramLabel = "FILE|URL",
      description = "The proxy's ledger: its SQLite file (default: ${DEFAULT-VALUE}), or jdbc:postgresql://host:port/db.")
  String ledger;

  @Option(names = "--since", defaultValue = "24h", paramLabel = "WHEN",
      description = "Start of the window: a duration back from now (30m, 24h, 7d) or a UTC time (2026-11-24, 2026-11-24T08:00:00Z). Default: ${DEFAULT-VALUE}.")
  String since;

  @Option(names = "--until", paramLabel = "WHEN", description = "End of the window, in the forms of --since. Default: now.")
  String until;

  @Option(names = "--tenant", paramLabel = "T", description = "Only this tenant.")
  String tenant;

  @Option(names = "--model", paramLabel = "M", description = "Only this model.")
  String model;

  @Option(names = "--threshold", paramLabel = "TPS", defaultValue = "30",
      description = "Per-user decode TPS bar of the knee, tokens/s (default: ${DEFAULT-VALUE}, the fluid-reading line).")
  double threshold = InFlightCurve.DEFAULT_THRESHOLD_TPS;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder for report.html and production.json (created).")
  Path out;

  @Spec CommandSpec spec;

  private final InstantSource clock;
  private final Map<String, String> env;

  ProxyReportCommand() {
    this(InstantSource.system(), System.getenv());
  }

  /** For tests: a fixed "now" and environment. */
  ProxyReportCommand(InstantSource clock, Map<String, String> env) {
    this.clock = clock;
    this.env = env;
  }

  @Override
  public Integer call() {
    if (!(threshold > 0) || Double.isInfinite(threshold)) {
      throw new UsageException("--threshold " + threshold + ": give the per-user TPS bar in tokens/s, above 0 (e.g. 30)");
    }
    ProductionSource source = ProductionSource.read(ledger, since, until, tenant, model, clock.instant(), env);
    ProductionSummary summary = ProductionSummary.of(source.requests(), source.window().since(),
        source.window().until(), source.window().tenantOrNull(), source.window().modelOrNull(), threshold);
    try {
      Files.createDirectories(out);
    } catch (IOException e) {
      throw new UsageException("--out " + out + ": cannot create the folder (" + e.getMessage() + "); give a writable one");
    }
    Path page;
    try {
      ProductionJsonWriter.write(out, summary, source.ledgerDisplay());
      page = ProductionHtml.write(out, summary, source.ledgerDisplay());
    } catch (IOException e) {
      throw new UsageException("--out " + out + ": cannot write the report (" + e.getMessage() + "); give a writable folder");
    }
    PrintWriter w = spec.commandLine().getOut();
    ProductionWords.sentences(summary).forEach(w::println);
    w.println("Report: " + page + " (open it in a browser; works offline); data: " + out.resolve(ProductionJsonWriter.FILE_NAME));
    w.flush();
    return Main.EXIT_OK;
  }
}
