package dev.tokenmeter.cli;

import dev.tokenmeter.run.MergeRun;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tokenmeter merge DIR... --out DIR}: one results folder from load generators that ran side
 * by side against the same target with the same plan, the basis for load beyond one machine.
 */
@Command(
    name = "merge",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Combines the results folders of load generators that ran at the same time, against the same target, with the same plan.",
      "Per stage, histograms add exactly, counts and throughputs add, and the load is the sum (c=8 on two machines is c=16). Writes summary.json (with merged_from) and requests.jsonl (every part's lines, with a part field) to --out."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter merge results/host-a results/host-b --out results/merged"
    })
final class MergeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "DIR", arity = "2..*", description = "Results folders of the parts.")
  List<Path> dirs;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder for the merged results (created; must not hold a summary.json).")
  Path out;

  @Option(names = "--force", description = "Merge even when the plans differ (stage count, labels, model): stages are merged by index up to the shortest part.")
  boolean force;

  @Override
  public Integer call() {
    MergeRun.merge(dirs, out, force, Runs.commandLine(spec), System.out, System.err);
    return Main.EXIT_OK;
  }
}
