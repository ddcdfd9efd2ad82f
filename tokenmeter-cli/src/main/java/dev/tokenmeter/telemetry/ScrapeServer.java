package dev.tokenmeter.telemetry;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Serves a registry at {@code GET /metrics} in the Prometheus text format (0.0.4), on the JDK's
 * HTTP server with one thread of its own, so scrapes never run on a run's event loop. Counts the
 * scrapes, so a run can wait at its end for one that sees the final values ({@link
 * #awaitNextScrape}). Thread-safe.
 */
public final class ScrapeServer implements AutoCloseable {
  private final PrometheusRegistry registry;
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
  private final HttpServer http;
  private final Object scrapes = new Object();
  private long begun; // scrapes begun; guarded by scrapes
  private long doneUpTo; // the latest ticket (1-based begin order) of a scrape served; guarded by scrapes
  private long served; // guarded by scrapes

  private ScrapeServer(PrometheusRegistry registry, HttpServer http) {
    this.registry = registry;
    this.http = http;
  }

  /**
   * Listens on {@code host:port} ({@code port} 0: any free port).
   *
   * @throws IllegalArgumentException in one line when the address cannot be bound
   */
  static ScrapeServer start(PrometheusRegistry registry, String host, int port) {
    HttpServer http;
    try {
      http = HttpServer.create(new InetSocketAddress(host, port), 0);
    } catch (BindException e) {
      throw new IllegalArgumentException("--metrics-port " + port + ": cannot listen on " + host + ":" + port
          + " (" + e.getMessage() + "); choose another port, or 0 for any free one");
    } catch (IOException e) {
      throw new IllegalArgumentException("--metrics-host " + host + ": cannot listen there (" + e.getMessage() + ")");
    }
    ScrapeServer server = new ScrapeServer(registry, http);
    http.createContext("/metrics", server::handle);
    http.setExecutor(Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "tokenmeter-metrics-http");
      t.setDaemon(true);
      return t;
    }));
    http.start();
    return server;
  }

  /** The port listened on. */
  public int port() {
    return http.getAddress().getPort();
  }

  /** {@code http://HOST:PORT/metrics}. */
  public String url() {
    return "http://" + http.getAddress().getHostString() + ":" + port() + "/metrics";
  }

  /** Scrapes served so far. */
  public long scrapes() {
    synchronized (scrapes) {
      return served;
    }
  }

  /**
   * Waits until a scrape that began after this call was served, {@code timeoutNanos} at most;
   * returns whether one was.
   */
  public boolean awaitNextScrape(long timeoutNanos) throws InterruptedException {
    synchronized (scrapes) {
      long after = begun;
      long deadline = System.nanoTime() + timeoutNanos; // a wait's deadline, not a measurement
      long left = timeoutNanos;
      while (doneUpTo <= after && left > 0) {
        TimeUnit.NANOSECONDS.timedWait(scrapes, left);
        left = deadline - System.nanoTime();
      }
      return doneUpTo > after;
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      long ticket;
      synchronized (scrapes) {
        ticket = ++begun;
      }
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      writer.write(body, registry.scrape());
      exchange.getResponseHeaders().set("Content-Type", writer.getContentType());
      exchange.sendResponseHeaders(200, body.size());
      try (OutputStream out = exchange.getResponseBody()) {
        body.writeTo(out);
      }
      synchronized (scrapes) {
        doneUpTo = Math.max(doneUpTo, ticket);
        served++;
        scrapes.notifyAll();
      }
    }
  }

  @Override
  public void close() {
    http.stop(0);
    if (http.getExecutor() instanceof java.util.concurrent.ExecutorService pool) {
      pool.shutdownNow();
    }
  }
}
