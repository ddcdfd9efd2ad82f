package dev.tokenmeter.cli;

import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.run.CompareRun;
import java.nio.file.Path;
import java.util.List;
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
    sortOptions = false,
    description = {
      "Compares results folders: each against the first (the baseline), stage by stage (matched by load",
      "label). Per stage: TTFT, TPOT, ITL, E2E p50/p99, per-user decode TPS p50/p10, output tokens/s,",
      "requests/s and error rate, with the change and a significance test on the per-request values",
      "(Mann-Whitney U, bootstrap, Fisher's exact; Holm-adjusted; docs/METRICS.md)."
    })
final class CompareCommand implements Callable<Integer> {
  @Parameters(paramLabel = "DIR", arity = "2..*", description = "Results folders (summary.json, requests.jsonl); the first is the baseline.")
  List<Path> dirs;

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

  @Override
  public Integer call() {
    CompareRun.compareAndWrite(dirs, settings(), markdown, json, html, System.out);
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
