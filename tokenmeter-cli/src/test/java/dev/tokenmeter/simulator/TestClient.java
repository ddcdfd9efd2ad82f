package dev.tokenmeter.simulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A JDK HttpClient over HTTP/1.1 plus a minimal SSE reader (data lines, blank-line dispatch), for
 * tests against a {@link SimServer}. Every event is stamped with System.nanoTime when its blank
 * line arrives: the same clock as the server's default ticker.
 */
final class TestClient implements AutoCloseable {

  /** One SSE event: its data and when it arrived. */
  record Event(String data, long arrivalNanos) {}

  /**
   * A streamed response read to its end.
   *
   * @param failure the I/O error that cut the stream, or null when it ended cleanly
   */
  record SseResponse(
      int status, HttpResponse<?> response, long sentNanos, long headersNanos, List<Event> events,
      IOException failure) {

    List<String> data() {
      return events.stream().map(Event::data).toList();
    }
  }

  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  private final String baseUrl;

  TestClient(SimServer server) {
    this.baseUrl = server.baseUrl();
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
    return client.send(request(path, json, null), HttpResponse.BodyHandlers.ofString());
  }

  SseResponse stream(String path, String json) throws IOException, InterruptedException {
    return stream(path, json, null);
  }

  /** Posts and reads the SSE stream to its end (or to the I/O error that cuts it). */
  SseResponse stream(String path, String json, String requestId)
      throws IOException, InterruptedException {
    long sent = System.nanoTime();
    HttpResponse<Stream<String>> response =
        client.send(request(path, json, requestId), HttpResponse.BodyHandlers.ofLines());
    long headers = System.nanoTime();
    List<Event> events = new ArrayList<>();
    IOException failure = null;
    StringBuilder data = null;
    try (Stream<String> lines = response.body()) {
      Iterator<String> it = lines.iterator();
      while (it.hasNext()) {
        String line = it.next();
        if (line.isEmpty()) {
          if (data != null) {
            events.add(new Event(data.toString(), System.nanoTime()));
            data = null;
          }
        } else if (line.startsWith("data:")) {
          String value = line.substring(line.startsWith("data: ") ? 6 : 5);
          data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
        }
      }
    } catch (UncheckedIOException e) {
      failure = e.getCause();
    }
    return new SseResponse(response.statusCode(), response, sent, headers, events, failure);
  }

  private HttpRequest request(String path, String json, String requestId) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .timeout(Duration.ofSeconds(5))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    if (requestId != null) {
      b.header("X-Request-Id", requestId);
    }
    return b.build();
  }

  @Override
  public void close() {
    client.close();
  }
}
