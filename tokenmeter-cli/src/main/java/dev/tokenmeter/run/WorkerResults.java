package dev.tokenmeter.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.report.RequestsJsonlMerger;
import dev.tokenmeter.report.RunSummary;
import dev.tokenmeter.report.SummaryJsonWriter;
import dev.tokenmeter.report.SummaryMerger;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one results folder of {@code bench --workers N}, from the folders the workers streamed into
 * {@code DIR/workers/worker-I/}: {@code summary.json} merged as {@code tokenmeter merge} merges
 * (histograms added, counts and throughputs summed: {@link SummaryMerger}), {@code requests.jsonl}
 * concatenated ({@link RequestsJsonlMerger}), plus a {@code workers} array: each worker's share,
 * clock offset, state and client health. A lost worker's share is named in {@code partial_detail}
 * and the run is partial ({@code worker_lost}). Stateless.
 */
public final class WorkerResults {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private WorkerResults() {}

  /**
   * One worker at the end of the run.
   *
   * @param share what it ran ({@code "c=4"}, {@code "every 2nd arrival from 1"})
   * @param finished it reported its end; false when lost
   * @param lostReason why it was declared lost; null when it finished
   * @param exitCode its bench's exit code; -1 when lost
   * @param lines request lines it streamed
   * @param dir where its stream was written
   */
  public record WorkerState(
      int index, String share, String host, long pid, long clockOffsetNanos, long rttNanos, boolean finished,
      String lostReason, int exitCode, long lines, Path dir) {}

  /**
   * Writes the merged folder into {@code outDir} and prints its stages and workers; returns the
   * run's exit code: 1 when a worker was lost or failed, else the workers' own (0, or 130 when
   * they were interrupted). No worker left is a {@link RunFailedException}.
   */
  public static int write(List<WorkerState> workers, Path outDir, List<String> commandLine, PrintStream out,
      PrintStream err) {
    List<WorkerState> merged = workers.stream()
        .filter(w -> w.finished() && Files.isRegularFile(w.dir().resolve("summary.json"))).toList();
    if (merged.isEmpty()) {
      throw new RunFailedException("no worker finished, nothing to merge; each worker's log is in "
          + outDir.resolve("workers"));
    }
    List<SummaryMerger.Part> parts = new ArrayList<>();
    for (WorkerState w : merged) {
      try {
        parts.add(new SummaryMerger.Part(w.dir(), MAPPER.readTree(w.dir().resolve("summary.json").toFile())));
      } catch (IOException e) {
        throw new RunFailedException("cannot read worker " + w.index() + "'s summary: " + e.getMessage());
      }
    }
    ObjectNode summary;
    List<String> warnings;
    try {
      SummaryMerger.Result r = SummaryMerger.merge(parts, commandLine, false);
      summary = r.summary();
      warnings = r.warnings();
    } catch (SummaryMerger.PlanMismatchException e) {
      throw new RunFailedException("the workers ran different plans: " + e.getMessage());
    }
    // Lost, or ended without results (its bench failed before its first stage): its share is missing.
    List<WorkerState> lost = workers.stream().filter(w -> !merged.contains(w)).toList();
    if (!lost.isEmpty()) {
      summary.put("partial", true);
      summary.put("partial_reason", RunSummary.PartialReason.WORKER_LOST.wireName());
      String detail = String.join("; ", lost.stream().map(w -> "worker " + w.index() + " (" + w.share() + ") "
          + (w.finished() ? "ended with exit code " + w.exitCode() + " before it sent results (its log says why)"
              : "lost: " + w.lostReason()) + "; its share is missing from these results").toList());
      String before = summary.path("partial_detail").asText("");
      summary.put("partial_detail", before.isEmpty() ? detail : detail + "; " + before);
    }
    summary.set("workers", workersJson(workers, merged));
    long lines;
    try {
      Files.createDirectories(outDir);
      SummaryJsonWriter.write(summary, outDir.resolve("summary.json"));
      lines = RequestsJsonlMerger.merge(merged.stream().map(w -> w.dir().resolve("requests.jsonl")).toList(),
          outDir.resolve("requests.jsonl"));
    } catch (IOException e) {
      throw new RunFailedException("cannot write the merged results to " + outDir + ": " + e.getMessage());
    }
    dev.tokenmeter.report.html.HtmlReport.writeQuietly(outDir, err);
    warnings.forEach(w -> err.println("tokenmeter: warning: " + w));
    print(summary, workers, lines, outDir, out);
    int code = 0;
    for (WorkerState w : workers) {
      code = Math.max(code, w.finished() ? w.exitCode() : 1);
    }
    return lost.isEmpty() ? code : Math.max(code, 1);
  }

  private static ArrayNode workersJson(List<WorkerState> workers, List<WorkerState> merged) {
    ArrayNode a = MAPPER.createArrayNode();
    for (WorkerState w : workers) {
      ObjectNode o = a.addObject();
      o.put("index", w.index());
      o.put("share", w.share());
      o.put("state", w.finished() ? "finished" : "lost");
      o.put("lost_reason", w.lostReason());
      int part = merged.indexOf(w);
      if (part >= 0) {
        o.put("part", part);
      } else {
        o.putNull("part");
      }
      o.put("host", w.host());
      o.put("pid", w.pid());
      o.put("clock_offset_ms", w.clockOffsetNanos() / 1e6);
      o.put("clock_rtt_ms", w.rttNanos() / 1e6);
      o.put("exit_code", w.exitCode());
      o.put("requests_streamed", w.lines());
      ArrayNode health = o.putArray("client_health");
      JsonNode summary = readQuietly(w.dir().resolve("summary.json"));
      if (summary != null) {
        for (JsonNode stage : summary.path("stages")) {
          JsonNode h = stage.path("client_health");
          ObjectNode e = health.addObject().put("stage", stage.path("index").asInt())
              .put("bottleneck", h.path("bottleneck").asBoolean());
          e.set("reasons", h.path("reasons").isArray() ? h.get("reasons").deepCopy() : MAPPER.createArrayNode());
        }
      }
    }
    return a;
  }

  private static JsonNode readQuietly(Path file) {
    try {
      return Files.isRegularFile(file) ? MAPPER.readTree(file.toFile()) : null;
    } catch (IOException e) {
      return null;
    }
  }

  private static void print(ObjectNode summary, List<WorkerState> workers, long lines, Path outDir, PrintStream out) {
    out.println();
    out.println("Workers:");
    for (WorkerState w : workers) {
      boolean bottleneck = false;
      JsonNode s = readQuietly(w.dir().resolve("summary.json"));
      if (s != null) {
        for (JsonNode stage : s.path("stages")) {
          bottleneck |= stage.at("/client_health/bottleneck").asBoolean();
        }
      }
      out.printf(Locale.ROOT, "  worker %d  %-28s %-9s clock offset %+.3f ms (round trip %.3f ms), %d requests%s%n",
          w.index(), w.share(), w.finished() ? "finished" : "LOST", w.clockOffsetNanos() / 1e6, w.rttNanos() / 1e6,
          w.lines(), bottleneck ? ", CLIENT BOTTLENECK (see its client_health)" : "");
    }
    out.println();
    for (JsonNode st : summary.get("stages")) {
      out.printf(Locale.ROOT, "  %s: %d completed, %d failed, %.1f output tokens/s, TTFT p50 %.2f ms, p99 %.2f ms%n",
          st.get("label").asText(), st.at("/requests/completed").asLong(), st.at("/requests/failed").asLong(),
          st.at("/throughput/output_tokens_per_s").asDouble(Double.NaN),
          st.at("/metrics/ttft_ms/p50").asDouble(Double.NaN), st.at("/metrics/ttft_ms/p99").asDouble(Double.NaN));
    }
    out.println();
    out.println("Results: " + outDir.resolve("summary.json") + " and " + outDir.resolve("requests.jsonl") + " ("
        + lines + " requests; each worker's share in " + outDir.resolve("workers") + ")");
    if (summary.path("partial").asBoolean()) {
      out.println("PARTIAL: " + summary.path("partial_detail").asText());
    }
  }
}
