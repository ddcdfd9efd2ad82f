package dev.tokenmeter.cli;

import dev.tokenmeter.report.html.HtmlReport;
import dev.tokenmeter.run.RecoverRun;
import dev.tokenmeter.run.RunFailedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tokenmeter report DIR}: re-renders a results folder's report.html from its summary.json. */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description = {
      "Renders report.html from a results folder's summary.json: the answer in plain words, charts and tables.",
      "One self-contained file that opens offline. Works on any results folder, partial and simulated runs included."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter report results/RUN",
      "  tokenmeter report --recover results/RUN"
    })
final class ReportCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "Results folder (holds summary.json).")
  Path dir;

  @Option(names = "--out", paramLabel = "FILE", description = "Where to write the page (default: DIR/report.html).")
  Path out;

  @Option(names = "--recover", description = {
      "The run's process died (kill -9, a crash): rebuild summary.json from requests.jsonl and the stage it was",
      "running, marked as recovered, then render report.html."})
  boolean recover;

  @Override
  public Integer call() {
    if (recover) {
      if (out != null) {
        throw new UsageException("--recover writes DIR/summary.json and DIR/report.html: leave out --out");
      }
      RecoverRun.recover(dir, System.out, System.err);
      return Main.EXIT_OK;
    }
    if (!Files.isRegularFile(dir.resolve("summary.json"))) {
      throw new UsageException(dir + " has no summary.json: give the results folder of a bench, demo or simulate run");
    }
    Path target = out == null ? dir.resolve(HtmlReport.FILE_NAME) : out;
    try {
      HtmlReport.write(dir, target);
    } catch (IOException e) {
      throw new RunFailedException("could not render " + target + " from " + dir.resolve("summary.json") + ": " + e.getMessage());
    }
    System.out.println("Report: " + target);
    return Main.EXIT_OK;
  }
}
