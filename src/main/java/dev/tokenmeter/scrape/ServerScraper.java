package dev.tokenmeter.scrape;

import dev.tokenmeter.core.time.Ticker;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
  private static final String ACCEPT =
      "text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1";
  private static final long MIN_TIMEOUT_NANOS = 2_000_000_000L;
  private static final long MAX_TIMEOUT_NANOS = 10_000_000_000L;

  private final URI url;
  private final Duration timeout;
  private final Ticker ticker;
  private final Consumer<String> notice;
  private final HttpClient http;
  private final ScheduledExecutorService thread;
  private final List<Reading> readings = new ArrayList<>();
  private volatile ServerKind kind = ServerKind.UNKNOWN;
  private volatile boolean stopped;
  private boolean transientNoticed;

  private ServerScraper(URI url, long intervalNanos, Ticker ticker, Consumer<String> notice) {
    this.url = url;
    this.timeout = Duration.ofNanos(Math.min(MAX_TIMEOUT_NANOS, Math.max(MIN_TIMEOUT_NANOS, intervalNanos)));
    this.ticker = ticker;
    this.notice = notice;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tokenmeter-server-metrics");
      t.setDaemon(true);
      return t;
    });
    this.http = HttpClient.newBuilder().connectTimeout(timeout).executor(Runnable::run).build();
  }

  /**
   * Starts scraping {@code url} now and every {@code intervalNanos}.
   *
   * @param notice receives the one line each kind of failure gets
   */
  public static ServerScraper start(URI url, long intervalNanos, Ticker ticker, Consumer<String> notice) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("--server-metrics-interval must be positive");
    }
    ServerScraper s = new ServerScraper(url, intervalNanos, ticker, notice);
    s.thread.scheduleWithFixedDelay(s::scrape, 0, intervalNanos, TimeUnit.NANOSECONDS);
    return s;
  }

  /** The scraped URL. */
  public URI url() {
    return url;
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
    return stopped;
  }

  /**
   * Scrapes once more now, on the scraper's thread, and waits for it (at most the scrape timeout
   * and a second): the reading that closes a stage's window.
   */
  public void scrapeNow() {
    try {
      thread.submit(this::scrape).get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | java.util.concurrent.RejectedExecutionException e) {
      // the scrape reports its own failures; a late one only lacks this reading
    }
  }

  private void scrape() {
    if (stopped) {
      return;
    }
    try {
      HttpResponse<String> answer = http.send(
          HttpRequest.newBuilder(url).timeout(timeout).header("Accept", ACCEPT).GET().build(),
          HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      long atNanos = ticker.nanos();
      int status = answer.statusCode();
      if (status >= 400 && status < 500) {
        stop("GET " + url + " answered HTTP " + status + " (does the server serve metrics there? give"
            + " --server-metrics URL)");
        return;
      }
      if (status != 200) {
        retry("GET " + url + " answered HTTP " + status);
        return;
      }
      Exposition e = PromText.parse(answer.body());
      synchronized (this) {
        if (readings.isEmpty()) {
          kind = ServerKind.detect(e);
        }
        readings.add(kind.read(e, atNanos));
      }
    } catch (PromText.Malformed e) {
      stop(url + " did not answer Prometheus text (" + e.getMessage() + ")");
    } catch (HttpTimeoutException e) {
      retry("GET " + url + " timed out after " + timeout.toMillis() + " ms");
    } catch (ConnectException e) {
      retry("cannot connect to " + url + " (" + (e.getMessage() == null ? "connection refused" : e.getMessage()) + ")");
    } catch (IOException e) {
      retry("GET " + url + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void stop(String why) {
    stopped = true;
    notice.accept("tokenmeter: server metrics: " + why + "; the run goes on without them");
  }

  private void retry(String why) {
    if (!transientNoticed) {
      transientNoticed = true;
      notice.accept("tokenmeter: server metrics: " + why + "; retrying each interval, the run goes on");
    }
  }

  /** Stops scraping; a scrape in flight is abandoned. */
  @Override
  public void close() {
    stopped = true;
    thread.shutdownNow();
    http.close();
  }
}
