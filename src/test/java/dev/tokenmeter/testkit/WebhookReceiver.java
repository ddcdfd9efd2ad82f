package dev.tokenmeter.testkit;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A webhook receiver on 127.0.0.1 that keeps every body posted to {@code /hook} and answers 204. */
public final class WebhookReceiver implements AutoCloseable {
  private final HttpServer server;
  private final List<String> bodies = new CopyOnWriteArrayList<>();

  private WebhookReceiver(HttpServer server) {
    this.server = server;
  }

  /** Starts one on a free port. */
  public static WebhookReceiver start() {
    try {
      HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      WebhookReceiver r = new WebhookReceiver(s);
      s.createContext("/hook", x -> {
        r.bodies.add(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        x.sendResponseHeaders(204, -1);
        x.close();
      });
      s.start();
      return r;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code http://127.0.0.1:PORT/hook}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
  }

  /** The bodies posted so far, in order. */
  public List<String> bodies() {
    return List.copyOf(bodies);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
