package dev.tokenmeter.scrape;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.tokenmeter.core.time.Ticker;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The scraper against a local HTTP server: readings, and each failure as one line. */
@Timeout(30)
class ServerScraperTest {
  private static final long HOUR = 3_600_000_000_000L;
  private HttpServer http;
  private final List<String> lines = new CopyOnWriteArrayList<>();

  private URI serve(int status, String body, long delayMillis) throws IOException {
    http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext("/metrics", ex -> {
      try {
        Thread.sleep(delayMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(status, b.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(b);
      }
    });
    http.start();
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/metrics");
  }

  @AfterEach
  void stop() {
    if (http != null) {
      http.stop(0);
    }
  }

  @Test
  void readsAKnownServerAtEachScrapeStampedByTheTicker() throws IOException {
    URI url = serve(200, "vllm:num_requests_waiting{model_name=\"m\"} 3\n", 0);
    AtomicInteger t = new AtomicInteger();
    Ticker ticker = () -> 1_000L * t.incrementAndGet();
    try (ServerScraper s = ServerScraper.start(url, HOUR, ticker, lines::add)) {
      s.scrapeNow(); // after the first, which start() runs at once
      assertThat(s.readings()).hasSize(2);
      assertThat(s.kind()).isEqualTo(ServerKind.VLLM);
      assertThat(s.url()).isEqualTo(url);
      assertThat(s.readings().get(0).value(Reading.Value.WAITING)).isEqualTo(3);
      assertThat(s.readings().get(1).atNanos()).isGreaterThan(s.readings().get(0).atNanos());
      assertThat(s.stopped()).isFalse();
    }
    assertThat(lines).isEmpty();
  }

  @Test
  void a404IsOneLineAndStopsTheScraping() throws IOException {
    URI url = serve(404, "not found", 0);
    try (ServerScraper s = ServerScraper.start(url, HOUR, Ticker.system(), lines::add)) {
      s.scrapeNow();
      s.scrapeNow();
      assertThat(s.stopped()).isTrue();
      assertThat(s.readings()).isEmpty();
    }
    assertThat(lines).singleElement().asString()
        .isEqualTo("tokenmeter: server metrics: GET " + url + " answered HTTP 404 (does the server serve metrics"
            + " there? give --server-metrics URL); the run goes on without them");
  }

  @Test
  void aBodyThatIsNotPrometheusTextIsOneLine() throws IOException {
    URI url = serve(200, "<html><body>Welcome</body></html>", 0);
    try (ServerScraper s = ServerScraper.start(url, HOUR, Ticker.system(), lines::add)) {
      s.scrapeNow();
      assertThat(s.stopped()).isTrue();
    }
    assertThat(lines).singleElement().asString().contains("did not answer Prometheus text (line 1: not a metric name");
  }

  @Test
  void serverErrorsAndRefusedConnectionsAreRetriedQuietlyAfterOneLine() throws IOException {
    URI url = serve(503, "busy", 0);
    try (ServerScraper s = ServerScraper.start(url, HOUR, Ticker.system(), lines::add)) {
      s.scrapeNow();
      s.scrapeNow();
      assertThat(s.stopped()).isFalse();
    }
    assertThat(lines).singleElement().asString().contains("answered HTTP 503").endsWith("retrying each interval,"
        + " the run goes on");
    lines.clear();
    int closed;
    try (ServerSocket probe = new ServerSocket(0)) {
      closed = probe.getLocalPort();
    }
    try (ServerScraper s = ServerScraper.start(URI.create("http://127.0.0.1:" + closed + "/metrics"), HOUR,
        Ticker.system(), lines::add)) {
      s.scrapeNow();
      assertThat(s.stopped()).isFalse();
    }
    assertThat(lines).singleElement().asString().contains("cannot connect to http://127.0.0.1:" + closed);
  }

  @Test
  void aScrapeThatTakesTooLongIsATimeout() throws IOException {
    URI url = serve(200, "x 1\n", 3_000);
    try (ServerScraper s = ServerScraper.start(url, 1, Ticker.system(), lines::add)) { // timeout: the 2 s floor
      s.scrapeNow();
    }
    assertThat(lines).first().asString().contains("timed out after 2000 ms");
  }

  @Test
  void anIntervalMustBePositive() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> ServerScraper.start(URI.create("http://127.0.0.1:1/metrics"), 0, Ticker.system(), lines::add))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
