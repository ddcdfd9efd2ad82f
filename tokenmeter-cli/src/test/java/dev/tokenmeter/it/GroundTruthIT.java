package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.cli.Main;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Timing truth at 100 concurrent streams: {@code tokenmeter sim serve --ground-truth FILE} in its
 * own process records when it read each request and wrote each token (System.nanoTime, the same
 * CLOCK_MONOTONIC as the client's); {@code bench --raw-times} records when each request was sent and
 * each chunk arrived. Joined request by request (X-Request-Id), on the one clock:
 *
 * <ul>
 *   <li><b>TTFT</b>: the truth of the interval the client reports is the server's first write minus
 *       the client's send, so each request's TTFT error is its first token's delivery (arrival minus
 *       write): within [0, {@value #P50_MS}] ms at p50 and {@value #P99_MS} ms at p99. The reported
 *       TTFT p50 (summary.json and raw) is within {@value #TTFT_P50_OF_P50_MS} ms of the truth's p50
 *       (measured 0.11-0.23 ms on a quiet machine, 0.94-0.96 ms in a CI run: the requests a burst
 *       delivers last are also the ones the server wrote last, so the p50s differ by more than the
 *       median error, 0.09-0.44 ms). A TTFT taken at
 *       the role chunk (before the write), at the usage frame or a whole ITL late (20 ms) meets none
 *       of these.
 *   <li><b>ITL</b>: the client's p50 within {@value #P50_MS} ms of the server's; per gap, the
 *       difference within {@value #P99_MS} ms at p99 (measured 4.5-8.7 ms: a woken thread waits for
 *       one of 2 cores now and then).
 *   <li><b>The send stamp</b>: the server's read of the request minus the client's send stamp, p50
 *       within [{@value #SEND_MIN_MS}, {@value #SEND_MAX_MS}] ms: a send stamped late (after the
 *       server read it) would shorten every TTFT and pass the first check.
 *   <li>The server's own TTFT (its read to its first write) against the client's: within {@value
 *       #TTFT_END_TO_END_MS} ms at p50; the difference is the request's transit, 100 sends at once
 *       read one after another on 2 cores (docs/PERFORMANCE.md, "Timing fidelity").
 * </ul>
 *
 * <p>Server: fixed schedule, TTFT 50 ms, ITL 20 ms, 16 tokens (ignore_eos), so 100 users keep 100
 * streams open and receive about 5,000 tokens/s; every token must arrive no earlier than written.
 *
 * <p>The comparison needs the server on time, since its record is the truth only while it writes on
 * schedule (emission lateness at most {@value #QUIET_SERVER_LATENESS_MS} ms at p50 and {@value
 * #QUIET_SERVER_LATENESS_P99_MS} ms at p99); a run where it was not is tried again, up to {@value #ATTEMPTS} runs. The client's own lateness is what the test
 * judges, never a reason to skip: a run where the client missed a bound is tried again too, and
 * the test fails when no run both had the server on time and the client within its bounds while
 * some run had the client miss (a regression misses in every run; a stray stall in one). When no run had the server on time, the test fails in CI
 * ({@code TOKENMETER_REQUIRE_TIMING} set, as .ci/run does) with the figures, and is skipped with them
 * elsewhere. The client runs in a JVM of its own, as users run it.
 */
@Timeout(120)
class GroundTruthIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final double P50_MS = 1.0;
  /** p99 bound of a first token's delivery and of an ITL's error: measured 2.8-8.7 ms on the 2-core machine. */
  static final double P99_MS = 15.0;
  static final double TTFT_P50_OF_P50_MS = 2.0;
  static final double SEND_MIN_MS = -1.0;
  static final double SEND_MAX_MS = 2.0;
  static final double TTFT_END_TO_END_MS = 5.0;
  static final double QUIET_SERVER_LATENESS_MS = 1.0;
  /**
   * The server's own tail on time too: a p99 claim about the client means nothing while the machine
   * stalls both. Measured on a quiet 2-core machine, the build of 2026-11-28 (67731e2) and that of
   * 2026-11-29 side by side, 4 alternated pairs of this test's 5-second run: server lateness p99
   * 5.7-13.7 and 5.3-7.1 ms, the client's first-token delivery p99 9.0-19.3 and 7.5-21.2 ms: no
   * difference between the builds. Both JVMs take young-collection pauses of 13-45 ms (G1, two or
   * three in the run; the parallel collector's were 27-35 ms, ZGC's concurrent threads as late) and
   * share two cores, so a run's tails vary with where a pause falls. The client's bounds are against
   * the server's own write times, so a server tail within this bound does not move them.
   */
  static final double QUIET_SERVER_LATENESS_P99_MS = 20.0;
  /** Runs tried before the test gives up on a server that could not keep its schedule. */
  private static final int ATTEMPTS = 5;

  @TempDir Path tmp;

  @Test
  void clientTtftAndItlMatchTheServersRecordAt100Streams() throws Exception {
    List<String> busy = new ArrayList<>();
    List<AssertionError> missed = new ArrayList<>();
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      String why;
      try {
        why = measureAndCompare(tmp.resolve("attempt-" + attempt));
      } catch (AssertionError e) {
        // The client missed a bound in this run: tried again, and the test fails only when it
        // missed in every run (one run's p99 on a shared 2-core machine moves with a stray stall).
        missed.add(e);
        System.out.println("GroundTruthIT: attempt " + attempt + ": the client missed: " + e.getMessage().strip());
        continue;
      }
      if (why == null) {
        return;
      }
      busy.add("attempt " + attempt + ": " + why);
      System.out.println("GroundTruthIT: " + busy.get(busy.size() - 1));
    }
    if (!missed.isEmpty()) {
      AssertionError e = new AssertionError("the client missed its bounds in " + missed.size() + " of " + ATTEMPTS
          + " runs and the server was late in the others (" + String.join("; ", busy) + "); the last miss follows",
          missed.getLast());
      throw e;
    }
    String reason = "the simulator could not keep its schedule in any of " + ATTEMPTS + " runs, so its record is no"
        + " truth to compare with: " + String.join("; ", busy);
    if (System.getenv("TOKENMETER_REQUIRE_TIMING") != null) {
      throw new AssertionError(reason + " (TOKENMETER_REQUIRE_TIMING is set: CI must judge the client's timing)");
    }
    org.junit.jupiter.api.Assumptions.abort(reason);
  }

  /**
   * One run of server and client, each in a JVM of its own; returns why the server was too late for
   * the comparison, or null once the comparison was made (its assertions throw on a drift).
   */
  private String measureAndCompare(Path dir) throws Exception {
    Files.createDirectories(dir);
    Path truthFile = dir.resolve("truth.jsonl");
    Path out = dir.resolve("run");
    Process server = startSimServe(truthFile);
    int exit;
    String clientOutput;
    try {
      String url = awaitUrl(server);
      Process client = startJvm(List.of("bench", "--url", url, "--model", "tokenmeter-sim",
          "--concurrency", "100", "--duration", "3s", "--warmup", "2s", "--cooldown", "0s",
          "--input-tokens", "16", "--output-tokens", "16", "--extra-body", "{\"ignore_eos\":true}",
          "--raw-times", "-q", "--out", out.toString()), dir.resolve("client.log"));
      assertThat(client.waitFor(60, TimeUnit.SECONDS)).as("bench finished").isTrue();
      exit = client.exitValue();
      clientOutput = Files.readString(dir.resolve("client.log"));
    } finally {
      server.destroy(); // SIGTERM: the shutdown hook closes the server and flushes the file
      assertThat(server.waitFor(20, TimeUnit.SECONDS)).as("sim serve stopped").isTrue();
    }
    assertThat(exit).as(clientOutput).isZero();

    Map<Long, JsonNode> truthById = truthById(truthFile);
    List<Double> clientTtft = new ArrayList<>();
    List<Double> truthTtft = new ArrayList<>();
    List<Double> serverTtft = new ArrayList<>();
    List<Double> firstDelivery = new ArrayList<>();
    List<Double> sendToRead = new ArrayList<>();
    List<Double> clientItl = new ArrayList<>();
    List<Double> serverItl = new ArrayList<>();
    List<Double> itlDiff = new ArrayList<>();
    List<Double> serverLateness = new ArrayList<>();
    for (String line : Files.readAllLines(out.resolve("requests.jsonl"))) {
      JsonNode c = JSON.readTree(line);
      if (!"measured".equals(c.path("phase").asText()) || !c.path("ok").asBoolean()) {
        continue;
      }
      JsonNode s = truthById.get(c.get("id").asLong());
      assertThat(s).as("server record of request %s", c.get("id")).isNotNull();
      long[] chunks = longs(c.get("chunk_ns"));
      long[] written = longs(s.get("actual_ns"));
      assertThat(chunks).as("request %s", c.get("id")).hasSize(16).hasSameSizeAs(written);
      for (int i = 0; i < chunks.length; i++) {
        assertThat(chunks[i]).as("request %s token %d arrives after its write", c.get("id"), i)
            .isGreaterThanOrEqualTo(written[i]);
      }
      long[] due = longs(s.get("intended_ns"));
      for (int i = 0; i < written.length; i++) {
        serverLateness.add((written[i] - due[i]) / 1e6);
      }
      long sent = c.get("sent_ns").asLong();
      long read = s.get("arrival_ns").asLong();
      clientTtft.add((chunks[0] - sent) / 1e6);
      truthTtft.add((written[0] - sent) / 1e6);
      serverTtft.add((written[0] - read) / 1e6);
      firstDelivery.add((chunks[0] - written[0]) / 1e6);
      sendToRead.add((read - sent) / 1e6);
      for (int i = 1; i < chunks.length; i++) {
        double ci = (chunks[i] - chunks[i - 1]) / 1e6;
        double si = (written[i] - written[i - 1]) / 1e6;
        clientItl.add(ci);
        serverItl.add(si);
        itlDiff.add(Math.abs(ci - si));
      }
    }
    double lateness = quantile(serverLateness, 0.5);
    double latenessP99 = quantile(serverLateness, 0.99);
    if (lateness > QUIET_SERVER_LATENESS_MS || latenessP99 > QUIET_SERVER_LATENESS_P99_MS) {
      return String.format(java.util.Locale.ROOT, "server emission lateness p50 %.3f ms, p99 %.3f ms (limits %.1f, %.1f)",
          lateness, latenessP99, QUIET_SERVER_LATENESS_MS, QUIET_SERVER_LATENESS_P99_MS);
    }
    JsonNode metrics = JSON.readTree(out.resolve("summary.json").toFile()).at("/stages/0/metrics");
    assertThat(clientTtft).hasSizeGreaterThanOrEqualTo(100); // 100 users, 3 s window (about 800 when on time)
    String figures = String.format(java.util.Locale.ROOT,
        "TTFT p50: truth (server write - client send) %.3f ms, client %.3f (raw) %.3f (summary), server's own %.3f;"
            + " first-token delivery p50 %.3f p99 %.3f ms; send to server read p50 %.3f ms;"
            + " ITL p50: server %.3f, client %.3f (raw) %.3f (summary); |ITL diff| p99 %.3f ms; server lateness p50 %.3f p99 %.3f",
        quantile(truthTtft, 0.5), quantile(clientTtft, 0.5), metrics.at("/ttft_ms/p50").asDouble(),
        quantile(serverTtft, 0.5), quantile(firstDelivery, 0.5), quantile(firstDelivery, 0.99),
        quantile(sendToRead, 0.5), quantile(serverItl, 0.5), quantile(clientItl, 0.5),
        metrics.at("/itl_ms/p50").asDouble(), quantile(itlDiff, 0.99), lateness, latenessP99);
    System.out.println("GroundTruthIT: " + figures);
    assertThat(quantile(firstDelivery, 0.5)).as(figures).isBetween(0.0, P50_MS);
    assertThat(quantile(firstDelivery, 0.99)).as(figures).isLessThanOrEqualTo(P99_MS);
    double truthP50 = quantile(truthTtft, 0.5);
    assertThat(metrics.at("/ttft_ms/p50").asDouble() - truthP50).as(figures)
        .isBetween(-TTFT_P50_OF_P50_MS, TTFT_P50_OF_P50_MS);
    assertThat(quantile(clientTtft, 0.5) - truthP50).as(figures).isBetween(-TTFT_P50_OF_P50_MS, TTFT_P50_OF_P50_MS);
    double serverItlP50 = quantile(serverItl, 0.5);
    assertThat(metrics.at("/itl_ms/p50").asDouble() - serverItlP50).as(figures).isBetween(-P50_MS, P50_MS);
    assertThat(quantile(clientItl, 0.5) - serverItlP50).as(figures).isBetween(-P50_MS, P50_MS);
    assertThat(quantile(itlDiff, 0.99)).as(figures).isLessThanOrEqualTo(P99_MS);
    assertThat(quantile(sendToRead, 0.5)).as(figures).isBetween(SEND_MIN_MS, SEND_MAX_MS);
    assertThat(quantile(clientTtft, 0.5) - quantile(serverTtft, 0.5)).as(figures)
        .isBetween(-TTFT_END_TO_END_MS, TTFT_END_TO_END_MS);
    // And the server kept its schedule, so the comparison is against 50 ms and 20 ms, not a drift.
    assertThat(quantile(serverTtft, 0.5)).as(figures).isBetween(50.0, 50.0 + P50_MS);
    assertThat(serverItlP50).as(figures).isBetween(20.0 - P50_MS, 20.0 + P50_MS);
    return null;
  }

  /**
   * {@code tokenmeter ARGS} in a JVM of its own on this test's class path, as a user runs it: not
   * in the test's JVM, whose coverage agent and other tests' threads would slow the client.
   */
  private static Process startJvm(List<String> args, Path log) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
        Main.class.getName()));
    cmd.addAll(args);
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /** {@code tokenmeter sim serve} on a free port in a JVM of its own, on this test's class path. */
  private static Process startSimServe(Path truthFile) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
        "sim", "serve", "--port", "0", "--ttft", "50ms", "--itl", "20ms", "--ground-truth", truthFile.toString());
    return new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
  }

  /** Reads sim serve's standard error until it names its URL: {@code http://127.0.0.1:PORT}. */
  private static String awaitUrl(Process server) throws Exception {
    CompletableFuture<String> url = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(server.getErrorStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          int at = line.indexOf(" at http://");
          if (at >= 0 && !url.isDone()) {
            url.complete(line.substring(at + 4, line.indexOf("/v1", at)));
          }
        }
        url.completeExceptionally(new AssertionError("sim serve ended without a URL"));
      } catch (java.io.IOException e) {
        url.completeExceptionally(e);
      }
    }, "sim-serve-stderr");
    reader.setDaemon(true);
    reader.start();
    return url.get(30, TimeUnit.SECONDS);
  }

  /** The ground-truth records by the client's request id: {@code tm-<run token>-<id>}. */
  private static Map<Long, JsonNode> truthById(Path file) throws Exception {
    Map<Long, JsonNode> byId = new HashMap<>();
    for (String line : Files.readAllLines(file)) {
      JsonNode s = JSON.readTree(line);
      String header = s.path("client_request_id").asText();
      long id = Long.parseLong(header.substring(header.lastIndexOf('-') + 1));
      assertThat(byId.put(id, s)).as("one record per request id, %s", header).isNull();
    }
    return byId;
  }

  private static long[] longs(JsonNode array) {
    long[] out = new long[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).asLong();
    }
    return out;
  }

  /** Nearest-rank quantile {@code q} (0.5: the median) of {@code values}. */
  private static double quantile(List<Double> values, double q) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    return v[(int) Math.max(0, Math.ceil(q * v.length) - 1)];
  }
}
