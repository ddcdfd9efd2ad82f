package dev.tokenmeter.testkit;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A webhook receiver on 127.0.0.1 for tests: keeps every body posted to {@code /hook}, answers 503
 * to the first {@code failures} posts, then 204. Close it to stop.
 */
public final class WebhookReceiver implements AutoCloseable {
  /** The bodies posted, in arrival order, the refused ones included. */
  public final List<String> bodies = new CopyOnWriteArrayList<>();
  private final AtomicInteger calls = new AtomicInteger();
  private final HttpServer server;

  private WebhookReceiver(int failures, int port) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    server.createContext("/hook", x -> {
      bodies.add(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      x.sendResponseHeaders(calls.incrementAndGet() <= failures ? 503 : 204, -1);
      x.close();
    });
    server.start();
  }

  public static WebhookReceiver start(int failures) throws IOException {
    return new WebhookReceiver(failures, 0);
  }

  /** A receiver on {@code port} (one that was free: a receiver coming back where it was). */
  public static WebhookReceiver start(int failures, int port) throws IOException {
    return new WebhookReceiver(failures, port);
  }

  /** {@code http://127.0.0.1:PORT/hook}. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
  }

  /** Posts received so far. */
  public int calls() {
    return calls.get();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
