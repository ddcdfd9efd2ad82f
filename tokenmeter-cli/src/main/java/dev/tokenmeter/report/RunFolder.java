package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.LatencyOrigin;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.Repeats;
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
import org.HdrHistogram.Histogram;

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

  /** In an open loop's stages, the fields of the headline TTFT and E2E: from the schedule. */
  static final Map<Metric, String> FROM_SCHEDULE_FIELDS =
      Map.of(Metric.TTFT, "ttft_from_scheduled_ms", Metric.E2E, "e2e_from_scheduled_ms");

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
    Map<Integer, Map<Metric, Doubles>> values = new HashMap<>();
    Map<Integer, Map<Metric, Doubles>> times = new HashMap<>();
    java.util.Set<Integer> open = new java.util.HashSet<>();
    summary.stages().stream().filter(st -> "open".equals(st.detail().loadModel())).forEach(st -> open.add(st.index()));
    if (hasRequests) {
      perRequest(requests, open, values, times);
    }
    List<StageSample> stages = new ArrayList<>();
    List<JsonNode> series = new ArrayList<>();
    JsonNode stageNodes = root.get("stages");
    for (int i = 0; i < summary.stages().size(); i++) {
      SavedSummary.Stage s = summary.stages().get(i);
      Map<Metric, Distribution> distributions = new EnumMap<>(Metric.class);
      for (Metric m : Metric.values()) {
        Distribution d = s.metrics().get(headline(m, open.contains(s.index())).reportKey());
        if (d != null) {
          distributions.put(m, d);
        }
      }
      Map<Metric, double[]> perRequest = new EnumMap<>(Metric.class);
      values.getOrDefault(s.index(), Map.of()).forEach((m, v) -> perRequest.put(m, v.toArray()));
      stages.add(new StageSample(s.index(), s.label(), distributions, perRequest,
          s.outputTokensPerSecond(), s.requestsPerSecond(), s.completed(), s.failed(),
          fromFirst(times.getOrDefault(s.index(), Map.of())), Map.of(), 1));
      series.add(stageNodes.get(i).path("time_series"));
    }
    return new RunFolder(dir, summary, stages, series, hasRequests);
  }

  /**
   * Each metric's times as seconds from the stage's first measured request: requests.jsonl's
   * {@code scheduled_at_ms} is from the run's start.
   */
  private static Map<Metric, double[]> fromFirst(Map<Metric, Doubles> scheduledMs) {
    double first = Double.POSITIVE_INFINITY;
    for (Doubles d : scheduledMs.values()) {
      for (double v : d.toArray()) {
        first = Math.min(first, v);
      }
    }
    Map<Metric, double[]> out = new EnumMap<>(Metric.class);
    for (Map.Entry<Metric, Doubles> e : scheduledMs.entrySet()) {
      double[] t = e.getValue().toArray();
      for (int i = 0; i < t.length; i++) {
        t[i] = (t[i] - first) / 1000;
      }
      out.put(e.getKey(), t);
    }
    return out;
  }

  /**
   * The distribution compared for {@code m}: TTFT and E2E are the headline ones, from the schedule
   * in an open loop (docs/METRICS.md, "Headline latency").
   */
  private static Metric headline(Metric m, boolean open) {
    LatencyOrigin origin = open ? LatencyOrigin.SCHEDULED : LatencyOrigin.SENT;
    return m == Metric.TTFT ? origin.ttft() : m == Metric.E2E ? origin.e2e() : m;
  }

  /**
   * Fills stage index → metric → values of successful measured requests (TTFT and E2E from the
   * schedule in the {@code open} stages), and the same for when each value's request was scheduled
   * ({@code scheduled_at_ms}).
   */
  private static void perRequest(Path file, java.util.Set<Integer> open, Map<Integer, Map<Metric, Doubles>> byStage,
      Map<Integer, Map<Metric, Doubles>> timesByStage) throws IOException {
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
        Map<Metric, Doubles> times =
            timesByStage.computeIfAbsent(r.path("stage").asInt(), k -> new EnumMap<>(Metric.class));
        JsonNode at = r.get("scheduled_at_ms");
        boolean fromSchedule = open.contains(r.path("stage").asInt());
        for (Map.Entry<Metric, String> f : PER_REQUEST_FIELDS.entrySet()) {
          JsonNode v = r.get(fromSchedule ? FROM_SCHEDULE_FIELDS.getOrDefault(f.getKey(), f.getValue()) : f.getValue());
          if (v != null && v.isNumber()) {
            stage.computeIfAbsent(f.getKey(), k -> new Doubles()).add(v.asDouble());
            if (at != null && at.isNumber()) {
              times.computeIfAbsent(f.getKey(), k -> new Doubles()).add(at.asDouble());
            }
          }
        }
      }
    }
  }

  /**
   * The stages as a comparison should see them: with {@code --repeat}, one sample per planned
   * stage pooling its repeats (each repeat a run: {@link StageSample#runOf()}), so that the runs,
   * not their requests, are the independent units; else {@link #stages()}.
   */
  public List<StageSample> comparable() {
    return summary.repeats() == null || summary.repeats().count() < 2 ? stages
        : summary.repeats().groups().stream().map(this::pooled).toList();
  }

  /** The repeats of group {@code g} as one sample: requests pooled, histograms merged. */
  private StageSample pooled(Repeats.Group g) {
    List<StageSample> parts = g.stages().stream()
        .map(i -> stages.stream().filter(st -> st.index() == i).findFirst().orElseThrow()).toList();
    Map<Metric, Distribution> distributions = new EnumMap<>(Metric.class);
    for (Metric m : Metric.values()) {
      Histogram merged = null;
      for (int i : g.stages()) {
        Histogram h = summary.stage(i).histograms().get(headline(m, "open".equals(summary.stage(i).detail().loadModel())));
        if (h == null) {
          continue;
        }
        if (merged == null) {
          merged = h.copy();
        } else {
          merged.add(h);
        }
      }
      if (merged != null) {
        distributions.put(m, Distribution.of(merged, m));
      }
    }
    Map<Metric, double[]> values = new EnumMap<>(Metric.class);
    Map<Metric, double[]> times = new EnumMap<>(Metric.class);
    Map<Metric, int[]> runOf = new EnumMap<>(Metric.class);
    for (Metric m : PER_REQUEST_FIELDS.keySet()) {
      Doubles v = new Doubles();
      Doubles t = new Doubles();
      List<Integer> run = new ArrayList<>();
      for (int r = 0; r < parts.size(); r++) {
        double[] pv = parts.get(r).perRequest().getOrDefault(m, new double[0]);
        double[] pt = parts.get(r).atSeconds().getOrDefault(m, new double[pv.length]);
        for (int i = 0; i < pv.length; i++) {
          v.add(pv[i]);
          t.add(pt[i]);
          run.add(r);
        }
      }
      if (!run.isEmpty()) {
        values.put(m, v.toArray());
        times.put(m, t.toArray());
        runOf.put(m, run.stream().mapToInt(Integer::intValue).toArray());
      }
    }
    return new StageSample(g.stages().get(0), g.label(), distributions, values,
        parts.stream().mapToDouble(StageSample::outputTokensPerSecond).average().orElse(Double.NaN),
        parts.stream().mapToDouble(StageSample::requestsPerSecond).average().orElse(Double.NaN),
        parts.stream().mapToLong(StageSample::completed).sum(),
        parts.stream().mapToLong(StageSample::failed).sum(), times, runOf, parts.size());
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
