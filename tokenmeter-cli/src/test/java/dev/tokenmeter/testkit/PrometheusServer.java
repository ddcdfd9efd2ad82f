package dev.tokenmeter.testkit;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (Debian's {@code prometheus} package) for tests: configuration and
 * storage in a folder of the test's, web API on 127.0.0.1 on a free port, scraping one target every
 * second. Also runs {@code promtool}. Close it to stop the server.
 *
 * <p>Needs {@code /usr/bin/prometheus} and {@code /usr/bin/promtool} (scripts/ensure-prometheus.sh
 * installs them). Without them the calling test is skipped, or fails when {@code
 * TOKENMETER_REQUIRE_PROMETHEUS=1} (as in .ci/run).
 */
public final class PrometheusServer implements AutoCloseable {
  public static final Path SERVER = Path.of("/usr/bin/prometheus");
  public static final Path PROMTOOL = Path.of("/usr/bin/promtool");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final Path log;
  private final URI api;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private PrometheusServer(Process process, Path log, URI api) {
    this.process = process;
    this.log = log;
    this.api = api;
  }

  /** Skips the calling test (or fails it, see above) when Prometheus is not installed. */
  public static void assumeInstalled() {
    boolean present = Files.isExecutable(SERVER) && Files.isExecutable(PROMTOOL);
    if (!present && "1".equals(System.getenv("TOKENMETER_REQUIRE_PROMETHEUS"))) {
      fail("TOKENMETER_REQUIRE_PROMETHEUS=1 but " + SERVER + " or " + PROMTOOL
          + " is missing: run scripts/ensure-prometheus.sh");
    }
    assumeTrue(present, "Prometheus not installed (" + SERVER + ", " + PROMTOOL
        + "): run scripts/ensure-prometheus.sh to run the metrics tests that need it");
  }

  /** Runs {@code promtool check metrics} on {@code exposition}; returns its exit code and output. */
  public static ToolResult checkMetrics(byte[] exposition) throws IOException, InterruptedException {
    assumeInstalled();
    Process p = new ProcessBuilder(PROMTOOL.toString(), "check", "metrics").redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(exposition);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("promtool check metrics did not finish in 30 s");
    }
    return new ToolResult(p.exitValue(), out);
  }

  /** What a tool said: exit code and its standard output and error together. */
  public record ToolResult(int exitCode, String output) {}

  /** Starts a server in {@code dir} that scrapes {@code http://127.0.0.1:targetPort/metrics} every second. */
  public static PrometheusServer start(Path dir, int targetPort) throws IOException, InterruptedException {
    assumeInstalled();
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(config, """
        global:
          scrape_interval: 1s
          scrape_timeout: 1s
          evaluation_interval: 1s
        scrape_configs:
          - job_name: tokenmeter
            metrics_path: /metrics
            static_configs:
              - targets: ['127.0.0.1:%d']
        """.formatted(targetPort));
    int port = freePort();
    Path log = dir.resolve("prometheus.log");
    Process p = new ProcessBuilder(SERVER.toString(),
        "--config.file=" + config,
        "--storage.tsdb.path=" + dir.resolve("data"),
        "--web.listen-address=127.0.0.1:" + port)
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    PrometheusServer server = new PrometheusServer(p, log, URI.create("http://127.0.0.1:" + port));
    server.awaitReady();
    return server;
  }

  /** The instant vector of {@code promql}, as the API's {@code data.result} array. */
  public JsonNode query(String promql) throws IOException, InterruptedException {
    URI uri = api.resolve("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode body = JSON.readTree(r.body());
    if (r.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
      throw new IOException("query " + promql + " failed: HTTP " + r.statusCode() + " " + r.body());
    }
    return body.path("data").path("result");
  }

  /** The value of the single series {@code promql} selects; fails the test when it selects another number. */
  public double value(String promql) throws IOException, InterruptedException {
    JsonNode result = query(promql);
    if (result.size() != 1) {
      org.junit.jupiter.api.Assertions.fail(promql + " selects " + result.size() + " series, want 1: " + describe(result));
    }
    return Double.parseDouble(result.get(0).path("value").get(1).asText());
  }

  /** Waits (30 s at most) until {@code promql} selects one series of value {@code want}; else fails the test. */
  public void awaitValue(String promql, double want) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    java.util.List<String> last = java.util.List.of();
    while (System.nanoTime() < deadline) {
      JsonNode r = query(promql);
      last = describe(r);
      if (r.size() == 1 && Double.parseDouble(r.get(0).path("value").get(1).asText()) == want) {
        return;
      }
      Thread.sleep(200); // a real Prometheus scrapes on its own schedule
    }
    org.junit.jupiter.api.Assertions.fail("after 30 s " + promql + " is " + last + ", want " + want + "; up: "
        + query("up") + "\nprometheus log:\n" + logTail());
  }

  /** The server's log so far (its last 4,000 characters), for failure messages. */
  public String logTail() {
    try {
      String s = Files.readString(log);
      return s.substring(Math.max(0, s.length() - 4000));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    process.destroy(); // SIGTERM: Prometheus shuts down cleanly
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private void awaitReady() throws InterruptedException {
    HttpRequest ready = HttpRequest.newBuilder(api.resolve("/-/ready")).timeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        fail("prometheus exited with " + process.exitValue() + " before it was ready:\n" + logTail());
      }
      try {
        if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    close();
    fail("prometheus was not ready within 60 s:\n" + logTail());
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The label set of each element of a query result, for failure messages. */
  public static List<String> describe(JsonNode result) {
    return java.util.stream.StreamSupport.stream(result.spliterator(), false)
        .map(JsonNode::toString).toList();
  }
}
