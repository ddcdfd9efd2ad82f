package dev.tokenmeter.cli;

import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.ledger.ProductionWindow;
import dev.tokenmeter.report.ProductionWords;
import dev.tokenmeter.run.CompareRun;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tokenmeter compare A B [C ...]}: every run against the first, stage by stage, with the
 * change of each headline number and whether it is significant. Reads results folders only.
 */
@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    abbreviateSynopsis = true,
    sortOptions = false,
    description = {
      "Compares results folders stage by stage, each against the first (the baseline).",
      "Stages are matched by load label. Per stage: TTFT, TPOT, ITL, E2E p50/p99, per-user decode TPS p50/p10, output tokens/s, requests/s and error rate, with the change and whether it is significant: Welch's t-test over the runs of --repeat, else over blocks of time; block-bootstrap intervals for the tails; Fisher's exact test for errors; Holm-adjusted (docs/METRICS.md, Comparing runs)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter compare results/before results/after",
      "  tokenmeter compare results/before results/after --markdown pr.md \\",
      "      --html compare.html",
      "  tokenmeter compare results/RUN --production tokenmeter-ledger.db \\",
      "      --since 24h"
    })
final class CompareCommand implements Callable<Integer> {
  @Parameters(paramLabel = "DIR", arity = "1..*", description = "Results folders (summary.json, requests.jsonl); the first is the baseline. With --production, one bench run.")
  List<Path> dirs;

  @Option(names = "--production", paramLabel = "FILE|URL", description = "Compare the one bench run given with production traffic from this proxy ledger, at the same concurrency (requests binned by those in flight at their start; docs/PROXY.md).")
  String production;

  @Option(names = "--since", defaultValue = "24h", paramLabel = "WHEN", description = "With --production: start of the window (30m, 24h, 7d, 2026-11-24T08:00:00Z). Default: ${DEFAULT-VALUE}.")
  String since;

  @Option(names = "--until", paramLabel = "WHEN", description = "With --production: end of the window. Default: now.")
  String until;

  @Option(names = "--tenant", paramLabel = "T", description = "With --production: only this tenant.")
  String tenant;

  @Option(names = "--model", paramLabel = "M", description = "With --production: only this model.")
  String model;

  @Option(names = "--alpha", paramLabel = "A", description = "Significance level, after Holm's correction per stage (default: ${DEFAULT-VALUE}).")
  double alpha = StageComparison.Settings.DEFAULT.alpha();

  @Option(names = "--markdown", paramLabel = "FILE", description = "Also write the tables as GitHub-flavoured Markdown (for a pull request).")
  Path markdown;

  @Option(names = "--json", paramLabel = "FILE", description = "Also write compare.json: rows, tests and both runs' curves (docs/RESULTS.md).")
  Path json;

  @Option(names = "--html", paramLabel = "FILE", description = "Also write the comparison as one self-contained HTML page (compare.html): the verdict, every run's curves overlaid, the tables.")
  Path html;

  @Option(names = "--bootstrap", paramLabel = "N", description = "Bootstrap resamples (default: ${DEFAULT-VALUE}).")
  int resamples = StageComparison.Settings.DEFAULT.resamples();

  @Option(names = "--seed", paramLabel = "N", description = "Seed of the bootstrap (default: ${DEFAULT-VALUE}); the same seed gives the same intervals.")
  long seed = StageComparison.Settings.DEFAULT.seed();

  @Option(names = "--min-change", paramLabel = "PCT", description = "Smallest change of a percentile, in %% of the baseline, reported as better or worse when significant; smaller ones are negligible (default: ${DEFAULT-VALUE}).")
  double minChangePercent = StageComparison.Settings.DEFAULT.minChangePercent();

  private final InstantSource clock;
  private final Map<String, String> env;

  CompareCommand() {
    this(InstantSource.system(), System.getenv());
  }

  /** For tests: a fixed "now" and environment. */
  CompareCommand(InstantSource clock, Map<String, String> env) {
    this.clock = clock;
    this.env = env;
  }

  @Override
  public Integer call() {
    if (production != null) {
      return compareWithProduction();
    }
    if (dirs.size() < 2) {
      throw new UsageException("compare needs two results folders (or one and --production LEDGER); got " + dirs.size());
    }
    CompareRun.compareAndWrite(dirs, settings(), markdown, json, html, System.out);
    return Main.EXIT_OK;
  }

  private int compareWithProduction() {
    if (dirs.size() != 1) {
      throw new UsageException("--production compares one bench run with production; got " + dirs.size()
          + " folders: give one");
    }
    if (markdown != null || json != null || html != null) {
      throw new UsageException("--markdown, --json and --html are not written for a production comparison yet;"
          + " drop them (the verdicts and tables print on the terminal)");
    }
    StageComparison.Settings settings = settings();
    ProductionSource source = ProductionSource.read(production, since, until, tenant, model, clock.instant(), env);
    ProductionWindow w = source.window();
    String name = "ledger " + source.ledgerDisplay() + ", " + ProductionWords.instant(w.since()) + " to "
        + ProductionWords.instant(w.until())
        + (w.tenantOrNull() == null ? "" : ", tenant " + w.tenantOrNull())
        + (w.modelOrNull() == null ? "" : ", model " + w.modelOrNull()) + ", " + source.requests().size() + " requests";
    CompareRun.compareProduction(dirs.get(0), source.requests(), name, settings, System.out);
    return Main.EXIT_OK;
  }

  /** The test settings of the options (their defaults on a fresh instance). */
  StageComparison.Settings settings() {
    try {
      return new StageComparison.Settings(alpha, resamples, seed, minChangePercent);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--alpha, --bootstrap or --min-change: " + e.getMessage());
    }
  }
}
