package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageSample;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A results folder read back for comparison: {@code summary.json} (headline numbers, histograms,
 * per-second series) and the per-request values of {@code requests.jsonl} (successful measured
 * requests only, the population of the stage's distributions). Immutable.
 *
 * @param dir the folder
 * @param summary its summary.json
 * @param stages per stage, what {@link dev.tokenmeter.core.analysis.StageComparison} needs
 * @param timeSeries per stage, the {@code time_series} object of summary.json as written
 * @param hasRequests whether requests.jsonl was there (without it nothing is tested)
 */
public record RunFolder(
    Path dir,
    SavedSummary summary,
    List<StageSample> stages,
    List<JsonNode> timeSeries,
    boolean hasRequests) {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Metrics whose per-request values requests.jsonl holds, with their field names. */
  static final Map<Metric, String> PER_REQUEST_FIELDS =
      Map.of(Metric.TTFT, "ttft_ms", Metric.TPOT, "tpot_ms", Metric.E2E, "e2e_ms",
          Metric.DECODE_TPS, "decode_tps");

  public RunFolder {
    stages = List.copyOf(stages);
    timeSeries = List.copyOf(timeSeries);
  }

  /**
   * Reads {@code dir}.
   *
   * @throws IOException when summary.json is missing, or a file cannot be read or parsed
   */
  public static RunFolder read(Path dir) throws IOException {
    Path summaryFile = dir.resolve("summary.json");
    JsonNode root = MAPPER.readTree(summaryFile.toFile());
    SavedSummary summary = SummaryJsonReader.read(root);
    Path requests = dir.resolve("requests.jsonl");
    boolean hasRequests = Files.isRegularFile(requests);
    Map<Integer, Map<Metric, Doubles>> values = hasRequests ? perRequest(requests) : Map.of();
    List<StageSample> stages = new ArrayList<>();
    List<JsonNode> series = new ArrayList<>();
    JsonNode stageNodes = root.get("stages");
    for (int i = 0; i < summary.stages().size(); i++) {
      SavedSummary.Stage s = summary.stages().get(i);
      Map<Metric, Distribution> distributions = new EnumMap<>(Metric.class);
      for (Metric m : Metric.values()) {
        Distribution d = s.metrics().get(m.reportKey());
        if (d != null) {
          distributions.put(m, d);
        }
      }
      Map<Metric, double[]> perRequest = new EnumMap<>(Metric.class);
      values.getOrDefault(s.index(), Map.of()).forEach((m, v) -> perRequest.put(m, v.toArray()));
      stages.add(new StageSample(s.index(), s.label(), distributions, perRequest,
          s.outputTokensPerSecond(), s.requestsPerSecond(), s.completed(), s.failed()));
      series.add(stageNodes.get(i).path("time_series"));
    }
    return new RunFolder(dir, summary, stages, series, hasRequests);
  }

  /** stage index → metric → values of successful measured requests. */
  private static Map<Integer, Map<Metric, Doubles>> perRequest(Path file) throws IOException {
    Map<Integer, Map<Metric, Doubles>> byStage = new HashMap<>();
    try (BufferedReader in = Files.newBufferedReader(file)) {
      String line;
      int number = 0;
      while ((line = in.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        JsonNode r;
        try {
          r = MAPPER.readTree(line);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
          throw new IOException(file + " line " + number + " is not JSON: " + e.getOriginalMessage(), e);
        }
        if (!"measured".equals(r.path("phase").asText()) || !r.path("ok").asBoolean()) {
          continue;
        }
        Map<Metric, Doubles> stage =
            byStage.computeIfAbsent(r.path("stage").asInt(), k -> new EnumMap<>(Metric.class));
        for (Map.Entry<Metric, String> f : PER_REQUEST_FIELDS.entrySet()) {
          JsonNode v = r.get(f.getValue());
          if (v != null && v.isNumber()) {
            stage.computeIfAbsent(f.getKey(), k -> new Doubles()).add(v.asDouble());
          }
        }
      }
    }
    return byStage;
  }

  /** A growable array of doubles. */
  private static final class Doubles {
    private double[] values = new double[256];
    private int size;

    void add(double v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    double[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }
}
