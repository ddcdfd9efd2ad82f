package dev.tokenmeter.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.Recovery;
import dev.tokenmeter.report.RequestsJsonlReader;
import dev.tokenmeter.report.StagePlanJson;
import dev.tokenmeter.report.SummaryJsonWriter;
import dev.tokenmeter.report.html.HtmlReport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * {@code tokenmeter report --recover DIR}: rewrites a dead run's summary.json and report.html from
 * what its folder holds ({@link Recovery}), and says in one line what was rebuilt.
 */
public final class RecoverRun {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private RecoverRun() {}

  /**
   * Recovers {@code dir}; returns the result.
   *
   * @throws IllegalArgumentException when {@code dir} is not the folder of a run that died
   * @throws RunFailedException when a file cannot be read or written
   */
  public static Recovery.Result recover(Path dir, PrintStream out, PrintStream err) {
    Path summaryFile = dir.resolve("summary.json");
    Path jsonl = dir.resolve("requests.jsonl");
    if (!Files.isRegularFile(summaryFile) || !Files.isRegularFile(jsonl)) {
      throw new IllegalArgumentException(dir + " has no summary.json and requests.jsonl: give the results folder"
          + " of a bench run whose process died");
    }
    Recovery.Result result;
    try {
      JsonNode summary = MAPPER.readTree(summaryFile.toFile());
      Path journal = dir.resolve(StagePlanJson.FILE_NAME);
      StagePlanJson.Running running = Files.isRegularFile(journal) ? StagePlanJson.read(journal) : null;
      result = Recovery.recover(summary, running, RequestsJsonlReader.read(jsonl));
      Path tmp = dir.resolve("summary.json.tmp");
      SummaryJsonWriter.write(result.summary(), tmp);
      Files.move(tmp, summaryFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(summaryFile + " is not JSON (" + e.getOriginalMessage()
          + "): recovery needs the summary the run wrote when it started");
    } catch (IOException e) {
      throw new RunFailedException("could not recover " + dir + ": " + e.getMessage());
    }
    HtmlReport.writeQuietly(dir, err);
    out.println("Recovered " + summaryFile + " from " + result.lines() + " requests in requests.jsonl"
        + (result.tornLines() > 0 ? " (" + result.tornLines() + " cut-short line skipped)" : "")
        + (result.rebuiltStage() < 0 ? "; no stage was running" : "; stage " + (result.rebuiltStage() + 1)
            + " rebuilt"));
    HtmlReport.printLocation(dir, out);
    return result;
  }
}
