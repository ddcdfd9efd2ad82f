package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.report.ServerWords;
import dev.tokenmeter.scrape.ServerFigures;
import dev.tokenmeter.scrape.ServerScraper;
import dev.tokenmeter.scrape.ServerStage;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * {@code bench --server-metrics}: scrapes the server through the run and, after each stage, turns
 * the scrapes into the stage's {@link ServerStage} and prints it in words. Used from the run's
 * thread; the scraping runs on the scraper's own.
 */
public final class ServerWatch implements AutoCloseable {

  /**
   * What to scrape and how often.
   *
   * @param url the server's Prometheus endpoint
   * @param intervalNanos time between scrapes
   */
  public record Settings(URI url, long intervalNanos) {
    public Settings {
      if (intervalNanos <= 0) {
        throw new IllegalArgumentException("--server-metrics-interval must be positive, e.g. 1s");
      }
    }
  }

  private final ServerScraper scraper;
  private final List<ServerStage> stages = new ArrayList<>();

  private ServerWatch(ServerScraper scraper) {
    this.scraper = scraper;
  }

  /** Starts scraping as {@code settings} say; failures go to {@code err}, one line each. */
  static ServerWatch start(Settings settings, Ticker ticker, PrintStream err) {
    return new ServerWatch(ServerScraper.start(settings.url(), settings.intervalNanos(), ticker, err::println));
  }

  /**
   * Closes the stage {@code r}: scrapes once more (the reading after its window), computes its
   * figures and prints them to {@code out}; the figures join {@link #stages()} (null when no scrape
   * succeeded yet).
   */
  void stageEnded(StageResult r, PrintStream out) {
    scraper.scrapeNow();
    var readings = scraper.readings();
    if (readings.isEmpty()) {
      stages.add(null);
      return;
    }
    long start = r.stageStartNanos();
    StageResult.Window w = r.window();
    long end = start + r.stageLengthNanos();
    ServerFigures.Span span = w.startOffsetNanos() < 0
        ? new ServerFigures.Span(start, start, end, end)
        : new ServerFigures.Span(start, start + w.startOffsetNanos(), start + w.endOffsetNanos(), end);
    ServerStage s = ServerFigures.of(scraper.kind(), readings, span, r.metric(Metric.TTFT).p50());
    stages.add(s);
    out.println(ServerWords.state(s));
    String words = ServerWords.decomposition(s);
    if (words != null) {
      out.println(words);
    }
  }

  /** One per stage ended so far, null for a stage without scrapes. */
  List<ServerStage> stages() {
    return Collections.unmodifiableList(new ArrayList<>(stages));
  }

  @Override
  public void close() {
    scraper.close();
  }
}
