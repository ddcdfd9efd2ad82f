package dev.tokenmeter.scrape;

import dev.tokenmeter.core.time.Ticker;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Scrapes a server's Prometheus endpoint every interval on a thread of its own (never the client's
 * event loop), parses each answer with {@link PromText} and keeps it as a {@link Reading} in the
 * names of the {@link ServerKind} its first good answer shows.
 *
 * <p>Failures never stop the run: each kind is one line to {@code notice}. An answer that can never
 * become right (HTTP 4xx such as 404, a body that is not Prometheus text) stops the scraping; one
 * that may pass (connection refused, a timeout, HTTP 5xx) is retried at the next interval, quietly.
 *
 * <pre>{@code
 * try (ServerScraper s = ServerScraper.start(URI.create("http://127.0.0.1:8000/metrics"),
 *     1_000_000_000L, Ticker.system(), err::println)) {
 *   ... run a stage ...
 *   s.scrapeNow();                          // a reading after the window's end
 *   ServerFigures.of(s.kind(), s.readings(), span, clientTtftP50Ms);
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class ServerScraper implements AutoCloseable {
  private static final PromScraper.Words WORDS = new PromScraper.Words("server metrics", "without them",
      "does the server serve metrics there? give --server-metrics URL");

  private final List<Reading> readings = new ArrayList<>();
  private volatile ServerKind kind = ServerKind.UNKNOWN;
  private PromScraper loop;

  private ServerScraper() {}

  /**
   * Starts scraping {@code url} now and every {@code intervalNanos}.
   *
   * @param notice receives the one line each kind of failure gets
   */
  public static ServerScraper start(URI url, long intervalNanos, Ticker ticker, Consumer<String> notice) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("--server-metrics-interval must be positive");
    }
    ServerScraper s = new ServerScraper();
    s.loop = PromScraper.start(url, intervalNanos, ticker, WORDS, notice, s::accept, "tokenmeter-server-metrics");
    return s;
  }

  private synchronized void accept(Exposition e, long atNanos) {
    if (readings.isEmpty()) {
      kind = ServerKind.detect(e);
    }
    readings.add(kind.read(e, atNanos));
  }

  /** The scraped URL. */
  public URI url() {
    return loop.url();
  }

  /** The server the first good answer showed; {@link ServerKind#UNKNOWN} before one. */
  public ServerKind kind() {
    return kind;
  }

  /** Every reading so far, in time order. */
  public synchronized List<Reading> readings() {
    return List.copyOf(readings);
  }

  /** Whether a failure that cannot pass stopped the scraping. */
  public boolean stopped() {
    return loop.stopped();
  }

  /**
   * Scrapes once more now, on the scraper's thread, and waits for it (at most the scrape timeout
   * and a second): the reading that closes a stage's window.
   */
  public void scrapeNow() {
    loop.scrapeNow();
  }

  /** Stops scraping; a scrape in flight is abandoned. */
  @Override
  public void close() {
    loop.close();
  }
}
