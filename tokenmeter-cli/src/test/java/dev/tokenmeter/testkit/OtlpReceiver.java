package dev.tokenmeter.testkit;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A minimal OpenTelemetry collector for tests: an OTLP/HTTP receiver on 127.0.0.1 (a free port)
 * that accepts {@code POST /v1/metrics} in protobuf, decodes each body as an {@link
 * ExportMetricsServiceRequest} with the protocol's own generated classes, keeps it, and answers 200
 * with an empty {@link ExportMetricsServiceResponse}, as a collector does. Close it to stop.
 */
public final class OtlpReceiver implements AutoCloseable {
  private final HttpServer http;
  private final List<ExportMetricsServiceRequest> received = new ArrayList<>();
  private final List<String> contentTypes = new ArrayList<>();

  private OtlpReceiver(HttpServer http) {
    this.http = http;
  }

  public static OtlpReceiver start() throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    OtlpReceiver r = new OtlpReceiver(http);
    http.createContext("/v1/metrics", exchange -> {
      try (exchange; InputStream in = exchange.getRequestBody()) {
        ExportMetricsServiceRequest request = ExportMetricsServiceRequest.parseFrom(in.readAllBytes());
        synchronized (r) {
          r.received.add(request);
          r.contentTypes.add(exchange.getRequestHeaders().getFirst("Content-Type"));
          r.notifyAll();
        }
        byte[] body = ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
        exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
        exchange.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        }
      }
    });
    http.start();
    return r;
  }

  /** {@code http://127.0.0.1:PORT}, the root a collector's OTLP/HTTP receiver listens on. */
  public String root() {
    return "http://127.0.0.1:" + http.getAddress().getPort();
  }

  /** Every request received so far, in order. */
  public synchronized List<ExportMetricsServiceRequest> requests() {
    return List.copyOf(received);
  }

  /** The Content-Type of every request received so far. */
  public synchronized List<String> contentTypes() {
    return List.copyOf(contentTypes);
  }

  /** Waits (up to {@code timeoutMillis}) until at least {@code n} requests came; returns whether they did. */
  public synchronized boolean await(int n, long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (received.size() < n) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /** The metric named {@code name} in the last request received, if there. */
  public synchronized Optional<Metric> last(String name) {
    if (received.isEmpty()) {
      return Optional.empty();
    }
    for (ResourceMetrics rm : received.get(received.size() - 1).getResourceMetricsList()) {
      for (ScopeMetrics sm : rm.getScopeMetricsList()) {
        for (Metric m : sm.getMetricsList()) {
          if (m.getName().equals(name)) {
            return Optional.of(m);
          }
        }
      }
    }
    return Optional.empty();
  }

  /** The string value of attribute {@code key} in {@code attributes}, or null. */
  public static String attribute(List<KeyValue> attributes, String key) {
    for (KeyValue kv : attributes) {
      if (kv.getKey().equals(key)) {
        return kv.getValue().getStringValue();
      }
    }
    return null;
  }

  @Override
  public void close() {
    http.stop(0);
  }
}
