package dev.tokenmeter.report;

import dev.tokenmeter.core.metrics.SampleStages;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A two-stage run for summary tests. */
final class SampleRun {
  private SampleRun() {}

  static RunSummary summary() {
    Map<String, Object> workload = new LinkedHashMap<>();
    workload.put("input_tokens", Map.of("distribution", "fixed", "mean", 512));
    workload.put("output_tokens", 256);
    workload.put("ignore_eos", true);
    return new RunSummary(
        new RunSummary.Tool("tokenmeter", "0.1.0-SNAPSHOT"),
        Instant.parse("2025-03-01T10:00:00Z"),
        Instant.parse("2025-03-01T10:00:17.250Z"),
        new RunSummary.Target("http://127.0.0.1:8000", "chat", "llama-3.1-8b"),
        List.of("bench", "--concurrency", "4", "--duration", "10s"),
        42,
        new RunSummary.Settings(
            new RunSummary.Timeouts(Duration.ofSeconds(30), Duration.ofSeconds(10), null),
            workload),
        RunSummary.Completion.interrupted("Ctrl-C during stage 1"),
        List.of(SampleStages.closed(42), SampleStages.openInterrupted(43)));
  }

  /**
   * The same run as {@link #summary()} with an SLO (the first stage passes, the second, with no
   * successes, fails), a knee bar and a search over its two loads.
   */
  static RunSummary analysed() {
    RunSummary r = summary();
    var analysis = dev.tokenmeter.core.slo.RunAnalysis.of(r.stages(), 30, 0.5,
        dev.tokenmeter.core.slo.Slo.parse("ttft.p99<=10s,errors<=50%,tps.p10>=1"),
        new dev.tokenmeter.core.analysis.LoadSearch(1, 8, true, 0, 10));
    return new RunSummary(r.tool(), r.startedAt(), r.endedAt(), r.target(), r.commandLine(), r.seed(),
        r.settings(), r.completion(), r.stages(), null, null, analysis, null);
  }

  /** The same run as {@link #summary()}, marked as simulated. */
  static RunSummary simulated() {
    RunSummary r = summary();
    var sim =
        new RunSummary.Simulation(
            "simulated in virtual time", "llama-3.1-8b", "h100-sxm", 1, "bf16", "bf16", 442_704,
            131_072, 256, 8192, 0.65, 0.803, 0.9, 5.0, 0.08, 12_345, 0, true, 0.25, 17.25, 0.4,
            new RunSummary.SimulatedEngine("vllm", "vLLM V1 (0.8+)", "flags", "published-points.json",
                0.05, 2.0, List.of(
                    new RunSummary.AccuracyFigure("all", "tpot", 145, 8.1, 37.9),
                    new RunSummary.AccuracyFigure("silybench", "tpot", 79, 7.7, 10.1),
                    new RunSummary.AccuracyFigure("unseen", "output_throughput", 26, 114.6, 271.9, 114.6))));
    return new RunSummary(
        r.tool(), r.startedAt(), r.endedAt(),
        new RunSummary.Target("simulate:llama-3.1-8b@1xh100-sxm", "chat", "llama-3.1-8b"),
        r.commandLine(), r.seed(),
        new RunSummary.Settings(r.settings().timeouts(), r.settings().workload(), sim),
        r.completion(), r.stages());
  }

  /**
   * The same run as {@link #summary()} scraped with {@code --server-metrics}: the first stage read
   * as vLLM (every field), the second as an unknown server (raw series only).
   */
  static RunSummary withServer() {
    RunSummary r = summary();
    return new RunSummary(r.tool(), r.startedAt(), r.endedAt(), r.target(), r.commandLine(), r.seed(),
        r.settings(), r.completion(), r.stages(), null, null, null, List.of(vllmStage(), unknownStage()));
  }

  /**
   * The same run as {@link #summary()} read with {@code --gpu-metrics}: the first stage from two
   * DCGM GPUs' energy counters, the second with no reading (null).
   */
  static RunSummary withGpu() {
    RunSummary r = summary();
    var readings = new java.util.ArrayList<dev.tokenmeter.scrape.GpuReading>();
    for (int i = 0; i <= 4; i++) {
      readings.add(new dev.tokenmeter.scrape.GpuReading(i * 1_000_000_000L, Map.of(
          "0 GPU-a", new dev.tokenmeter.scrape.GpuReading.Gpu(400, 90, 70_000, 1980, 0.8, 0.6, 1e6 + 400.0 * i),
          "1 GPU-b", new dev.tokenmeter.scrape.GpuReading.Gpu(380, 88, 70_000, 1980, 0.7, 0.6, 2e6 + 380.0 * i))));
    }
    var gpu = dev.tokenmeter.scrape.GpuFigures.of(dev.tokenmeter.scrape.GpuKind.DCGM, readings,
        new dev.tokenmeter.scrape.ServerFigures.Span(0, 1_000_000_000L, 3_000_000_000L, 4_000_000_000L), 3120, 24,
        0.12);
    var gpus = new java.util.ArrayList<dev.tokenmeter.scrape.GpuStage>();
    gpus.add(gpu);
    gpus.add(null);
    return new RunSummary(r.tool(), r.startedAt(), r.endedAt(), r.target(), r.commandLine(), r.seed(),
        r.settings(), r.completion(), r.stages(), null, null, null, null, gpus);
  }

  static dev.tokenmeter.scrape.ServerStage vllmStage() {
    var gauges = new java.util.EnumMap<dev.tokenmeter.scrape.Reading.Value, dev.tokenmeter.scrape.ServerStage.Gauge>(
        dev.tokenmeter.scrape.Reading.Value.class);
    gauges.put(dev.tokenmeter.scrape.Reading.Value.WAITING, new dev.tokenmeter.scrape.ServerStage.Gauge(5.25, 8));
    gauges.put(dev.tokenmeter.scrape.Reading.Value.RUNNING, new dev.tokenmeter.scrape.ServerStage.Gauge(2, 2));
    gauges.put(dev.tokenmeter.scrape.Reading.Value.KV_CACHE_USAGE, new dev.tokenmeter.scrape.ServerStage.Gauge(0.41, 0.63));
    var totals = new java.util.EnumMap<dev.tokenmeter.scrape.Reading.Value, Double>(dev.tokenmeter.scrape.Reading.Value.class);
    totals.put(dev.tokenmeter.scrape.Reading.Value.PREEMPTIONS, 1.0);
    totals.put(dev.tokenmeter.scrape.Reading.Value.PREFIX_CACHE_QUERIES, 4000.0);
    totals.put(dev.tokenmeter.scrape.Reading.Value.PREFIX_CACHE_HITS, 500.0);
    totals.put(dev.tokenmeter.scrape.Reading.Value.GENERATION_TOKENS, 2560.0);
    var lat = new java.util.EnumMap<dev.tokenmeter.scrape.Reading.Histogram, dev.tokenmeter.scrape.ServerStage.Latency>(
        dev.tokenmeter.scrape.Reading.Histogram.class);
    lat.put(dev.tokenmeter.scrape.Reading.Histogram.QUEUE_TIME,
        new dev.tokenmeter.scrape.ServerStage.Latency(40, 600, 610, 900, 990, 500, 800));
    lat.put(dev.tokenmeter.scrape.Reading.Histogram.PREFILL_TIME,
        new dev.tokenmeter.scrape.ServerStage.Latency(40, 170, 180, 270, 297, 100, 300));
    lat.put(dev.tokenmeter.scrape.Reading.Histogram.TTFT,
        new dev.tokenmeter.scrape.ServerStage.Latency(40, Double.NaN, 790, 950, 1200, 750, 1000));
    return new dev.tokenmeter.scrape.ServerStage(dev.tokenmeter.scrape.ServerKind.VLLM, 10, gauges, totals, 0.125, lat,
        new dev.tokenmeter.scrape.ServerStage.Decomposition(840, 610, "vLLM queue time", 180, 50, List.of()),
        new dev.tokenmeter.scrape.ServerStage.Series(new double[] {0.5, 1.5, 2.5}, new double[] {2, 2, 2},
            new double[] {3, 6, 8}, new double[] {0.2, Double.NaN, 0.63}, Map.of()));
  }

  static dev.tokenmeter.scrape.ServerStage unknownStage() {
    return new dev.tokenmeter.scrape.ServerStage(dev.tokenmeter.scrape.ServerKind.UNKNOWN, 2, Map.of(), Map.of(),
        Double.NaN, Map.of(), null,
        new dev.tokenmeter.scrape.ServerStage.Series(new double[] {0, 1}, new double[] {Double.NaN, Double.NaN},
            new double[] {Double.NaN, Double.NaN}, new double[] {Double.NaN, Double.NaN},
            Map.of("my_queue{pool=\"a\"}", new double[] {4, 5})));
  }
}
