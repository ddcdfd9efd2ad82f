package dev.tokenmeter.scrape;

import dev.tokenmeter.core.time.Ticker;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Scrapes a GPU exporter ({@link GpuKind#DCGM}, {@link GpuKind#AMD}) every interval, with the same
 * loop and parser as {@code --server-metrics} ({@link PromScraper}, {@link PromText}), and keeps
 * each answer as a {@link GpuReading}. An endpoint that answers no GPU series is told once and no
 * longer scraped. Thread-safe.
 *
 * <pre>{@code
 * GpuScraper s = GpuScraper.start(URI.create("http://gpu-node:9400/metrics"), "", 1_000_000_000L,
 *     Ticker.system(), err::println);
 * }</pre>
 */
public final class GpuScraper implements GpuSource {
  private static final PromScraper.Words WORDS = new PromScraper.Words("GPU metrics", "without energy figures",
      "is a DCGM or AMD exporter there? give --gpu-metrics URL, e.g. http://HOST:9400/metrics");

  private final String prefix;
  private final List<GpuReading> readings = new ArrayList<>();
  private volatile GpuKind kind;
  private PromScraper loop;

  private GpuScraper(String prefix) {
    this.prefix = prefix;
  }

  /**
   * Starts scraping {@code url} now and every {@code intervalNanos}; each GPU's key starts with
   * {@code prefix} ({@code "node-a:9400 "} when several exporters are scraped, else empty).
   */
  public static GpuScraper start(URI url, String prefix, long intervalNanos, Ticker ticker, Consumer<String> notice) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("--gpu-metrics-interval must be positive");
    }
    GpuScraper s = new GpuScraper(prefix);
    s.loop = PromScraper.start(url, intervalNanos, ticker, WORDS, notice, s::accept, "tokenmeter-gpu-metrics");
    return s;
  }

  private synchronized void accept(Exposition e, long atNanos) {
    GpuKind k = kind == null ? GpuKind.detect(e) : kind;
    if (k == null) {
      throw new PromScraper.Rejected(loop.url() + " has no GPU series (neither DCGM's DCGM_FI_DEV_POWER_USAGE nor"
          + " AMD's gpu_package_power or gpu_energy_consumed)");
    }
    GpuReading r = k.read(e, atNanos, prefix);
    if (r.gpus().isEmpty()) {
      throw new PromScraper.Rejected(loop.url() + " has " + k.displayName() + " series but none labelled with a GPU"
          + (k == GpuKind.DCGM ? " (gpu, UUID)" : " (gpu_id)"));
    }
    kind = k;
    readings.add(r);
  }

  /** The scraped URL. */
  public URI url() {
    return loop.url();
  }

  @Override
  public GpuKind kind() {
    return kind;
  }

  @Override
  public synchronized List<GpuReading> readings() {
    return List.copyOf(readings);
  }

  /** Whether a failure that cannot pass stopped the scraping. */
  public boolean stopped() {
    return loop.stopped();
  }

  @Override
  public void readNow() {
    loop.scrapeNow();
  }

  @Override
  public void close() {
    loop.close();
  }
}
