package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.report.GpuWords;
import dev.tokenmeter.scrape.GpuFigures;
import dev.tokenmeter.scrape.GpuKind;
import dev.tokenmeter.scrape.GpuReading;
import dev.tokenmeter.scrape.GpuScraper;
import dev.tokenmeter.scrape.GpuSource;
import dev.tokenmeter.scrape.GpuStage;
import dev.tokenmeter.scrape.NvidiaSmi;
import dev.tokenmeter.scrape.ServerFigures;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * {@code bench --gpu-metrics}: reads the GPUs' telemetry through the run (one or more exporters, or
 * nvidia-smi) and, after each stage, turns the readings into the stage's {@link GpuStage} and
 * prints it in words. Used from the run's thread; the reading runs on the sources' own.
 */
public final class GpuWatch implements AutoCloseable {

  /**
   * What to read and how often.
   *
   * @param urls the exporters' Prometheus endpoints; empty for {@code nvml}
   * @param nvml read nvidia-smi instead of an exporter
   * @param intervalNanos time between readings
   * @param pricePerKwh {@code --power-price}; NaN without
   * @param currency what the price is in
   */
  public record Settings(List<URI> urls, boolean nvml, long intervalNanos, double pricePerKwh, String currency) {
    public Settings {
      urls = List.copyOf(urls);
      if (intervalNanos <= 0) {
        throw new IllegalArgumentException("--gpu-metrics-interval must be positive, e.g. 1s");
      }
      if (nvml == !urls.isEmpty()) {
        throw new IllegalArgumentException("--gpu-metrics: give exporter URLs or nvml");
      }
    }
  }

  private final Settings settings;
  private final List<GpuSource> sources;
  private final List<GpuStage> stages = new ArrayList<>();
  private final List<String> labels = new ArrayList<>();

  private GpuWatch(Settings settings, List<GpuSource> sources) {
    this.settings = settings;
    this.sources = sources;
  }

  /** Starts reading as {@code settings} say; failures go to {@code err}, one line each. */
  public static GpuWatch start(Settings settings, Ticker ticker, PrintStream err) {
    List<GpuSource> sources = new ArrayList<>();
    if (settings.nvml()) {
      sources.add(NvidiaSmi.start(settings.intervalNanos(), ticker, err::println));
    }
    boolean several = settings.urls().size() > 1;
    for (URI url : settings.urls()) {
      String prefix = several ? url.getHost() + (url.getPort() < 0 ? "" : ":" + url.getPort()) + " " : "";
      sources.add(GpuScraper.start(url, prefix, settings.intervalNanos(), ticker, err::println));
    }
    return new GpuWatch(settings, sources);
  }

  /**
   * Closes the stage {@code r}: reads once more (the reading after its window), computes its
   * figures and prints them to {@code out}; the figures join {@link #stages()} (null when nothing
   * was read yet).
   */
  void stageEnded(StageResult r, PrintStream out) {
    sources.forEach(GpuSource::readNow);
    List<GpuReading> readings = new ArrayList<>();
    GpuKind kind = null;
    for (GpuSource s : sources) {
      readings.addAll(s.readings());
      kind = kind == null ? s.kind() : kind;
    }
    readings.sort(Comparator.comparingLong(GpuReading::atNanos));
    labels.add(label(r));
    if (readings.isEmpty() || kind == null) {
      stages.add(null);
      return;
    }
    long start = r.stageStartNanos();
    StageResult.Window w = r.window();
    long end = start + r.stageLengthNanos();
    ServerFigures.Span span = w.startOffsetNanos() < 0
        ? new ServerFigures.Span(start, start, end, end)
        : new ServerFigures.Span(start, start + w.startOffsetNanos(), start + w.endOffsetNanos(), end);
    double windowSeconds = (span.windowToNanos() - span.windowFromNanos()) / 1e9;
    GpuStage g = GpuFigures.of(kind, readings, span, r.throughput().windowOutputTokens(),
        r.throughput().requestsPerSecond() * windowSeconds, settings.pricePerKwh());
    stages.add(g);
    out.println(GpuWords.stage(g, settings.currency()));
  }

  /** The sweep's sentence (last stage against the first); nothing with fewer than two stages. */
  void printSweep(PrintStream out) {
    String words = GpuWords.compare(stages, labels);
    if (words != null) {
      out.println("Energy: " + words);
    }
  }

  static String label(StageResult r) {
    return switch (r.plan().load()) {
      case LoadModel.Closed c -> GpuWords.load(c.concurrency(), Double.NaN);
      case LoadModel.Open o -> GpuWords.load(0, o.ratePerSecond());
    };
  }

  /** One per stage ended so far, null for a stage without readings. */
  List<GpuStage> stages() {
    return Collections.unmodifiableList(new ArrayList<>(stages));
  }

  @Override
  public void close() {
    sources.forEach(GpuSource::close);
  }
}
