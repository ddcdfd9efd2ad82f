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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The scraping loop that {@link ServerScraper} ({@code --server-metrics}) and {@link GpuScraper}
 * ({@code --gpu-metrics}) share: GET a Prometheus endpoint every interval on a thread of its own
 * (never the client's event loop), parse the answer with {@link PromText} and hand it, with the
 * ticker time it arrived, to a {@link Handler}.
 *
 * <p>Failures never stop the run: each kind is one line to {@code notice}. An answer that can never
 * become right (HTTP 4xx such as 404, a body that is not Prometheus text, a handler's {@link
 * Rejected}) stops the scraping; one that may pass (connection refused, a timeout, HTTP 5xx) is
 * retried at the next interval, quietly. Thread-safe.
 */
final class PromScraper implements AutoCloseable {
  private static final String ACCEPT =
      "text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1";
  private static final long MIN_TIMEOUT_NANOS = 2_000_000_000L;
  private static final long MAX_TIMEOUT_NANOS = 10_000_000_000L;

  /** Takes one parsed scrape; called on the scraper's thread, one at a time. */
  @FunctionalInterface
  interface Handler {
    /**
     * @throws Rejected when the answer shows the endpoint is not what was asked for (no GPU series)
     */
    void accept(Exposition e, long atNanos);
  }

  /** A scrape that shows the endpoint can never serve what is wanted: stops the scraping. */
  static final class Rejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Rejected(String why) {
      super(why);
    }
  }

  /**
   * The words a scraper's notices use.
   *
   * @param what {@code "server metrics"}: what the notices are about
   * @param without {@code "without them"}: what the run goes on without
   * @param hint said after an HTTP 4xx ({@code "does the server serve metrics there? ..."})
   */
  record Words(String what, String without, String hint) {}

  private final URI url;
  private final Duration timeout;
  private final Ticker ticker;
  private final Words words;
  private final Consumer<String> notice;
  private final Handler handler;
  private final HttpClient http;
  private final ScheduledExecutorService thread;
  private volatile boolean stopped;
  private boolean transientNoticed;

  private PromScraper(URI url, long intervalNanos, Ticker ticker, Words words, Consumer<String> notice,
      Handler handler, String threadName) {
    this.url = url;
    this.timeout = Duration.ofNanos(Math.min(MAX_TIMEOUT_NANOS, Math.max(MIN_TIMEOUT_NANOS, intervalNanos)));
    this.ticker = ticker;
    this.words = words;
    this.notice = notice;
    this.handler = handler;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
    this.http = HttpClient.newBuilder().connectTimeout(timeout).executor(Runnable::run).build();
  }

  /** Starts scraping {@code url} now and every {@code intervalNanos}. */
  static PromScraper start(URI url, long intervalNanos, Ticker ticker, Words words, Consumer<String> notice,
      Handler handler, String threadName) {
    PromScraper s = new PromScraper(url, intervalNanos, ticker, words, notice, handler, threadName);
    s.thread.scheduleWithFixedDelay(s::scrape, 0, intervalNanos, TimeUnit.NANOSECONDS);
    return s;
  }

  URI url() {
    return url;
  }

  boolean stopped() {
    return stopped;
  }

  /** Scrapes once more now, on the scraper's thread, and waits for it (at most the timeout and a second). */
  void scrapeNow() {
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
        stop("GET " + url + " answered HTTP " + status + " (" + words.hint() + ")");
        return;
      }
      if (status != 200) {
        retry("GET " + url + " answered HTTP " + status);
        return;
      }
      handler.accept(PromText.parse(answer.body()), atNanos);
    } catch (PromText.Malformed e) {
      stop(url + " did not answer Prometheus text (" + e.getMessage() + ")");
    } catch (Rejected e) {
      stop(e.getMessage());
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
    notice.accept("tokenmeter: " + words.what() + ": " + why + "; the run goes on " + words.without());
  }

  private void retry(String why) {
    if (!transientNoticed) {
      transientNoticed = true;
      notice.accept("tokenmeter: " + words.what() + ": " + why + "; retrying each interval, the run goes on");
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
