package dev.tokenmeter.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.load.Shard;
import dev.tokenmeter.core.time.Ticker;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A worker's side of {@link Coordinator}'s API ({@code tokenmeter worker --coordinator URL}):
 * measures its clock's offset, registers and gets its shard and the bench arguments, waits at each
 * stage's barrier until the agreed instant, streams its results folder's new {@code
 * requests.jsonl} lines and changed {@code summary.json} every second, and reports its end.
 * Thread-safety: {@link #awaitStage} on the run's thread, the stream on its own.
 */
public final class WorkerLink implements AutoCloseable {
  static final int CLOCK_SAMPLES = 8;
  static final long CONNECT_NANOS = 120_000_000_000L; // 2 min for the coordinator to come up
  static final long STREAM_NANOS = 1_000_000_000L; // 1 s; the coordinator declares a worker lost after 10 s
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final URI coordinator;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Ticker ticker;
  private final long epochNanosAtStart;
  private final long tickerAtStart;
  private final PrintStream err;
  private long offsetNanos;
  private long rttNanos;
  private int index;
  private int count;
  private List<String> args = List.of();
  private Thread streamer;
  private volatile boolean stopping;
  private Path outDir;
  private long jsonlOffset;
  private long summaryModified;

  private WorkerLink(URI coordinator, Ticker ticker, PrintStream err) {
    this.coordinator = coordinator;
    this.ticker = ticker;
    Instant now = Instant.now();
    this.epochNanosAtStart = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    this.tickerAtStart = ticker.nanos();
    this.err = err;
  }

  /**
   * Measures the clock offset and registers as worker {@code index} (-1: any free one, the
   * coordinator picks). A coordinator that cannot be reached or refuses is a {@link
   * RunFailedException} naming it.
   */
  public static WorkerLink connect(URI coordinator, int index, Ticker ticker, PrintStream err) {
    WorkerLink l = new WorkerLink(coordinator, ticker, err);
    l.syncClock();
    ObjectNode body = MAPPER.createObjectNode().put("index", index).put("host", host())
        .put("pid", ProcessHandle.current().pid()).put("clock_offset_ns", l.offsetNanos).put("rtt_ns", l.rttNanos);
    JsonNode reply = l.post("/register", body);
    l.index = reply.get("index").asInt();
    l.count = reply.get("workers").asInt();
    List<String> a = new ArrayList<>();
    reply.get("args").forEach(x -> a.add(x.asText()));
    l.args = List.copyOf(a);
    err.printf(java.util.Locale.ROOT, "tokenmeter worker: worker %d of %d (pid %d), clock offset %+.3f ms (round trip %.3f ms)%n",
        l.index, l.count, ProcessHandle.current().pid(), l.offsetNanos / 1e6, l.rttNanos / 1e6);
    return l;
  }

  /** This worker's part of every stage. */
  public Shard shard() {
    return new Shard(index, count);
  }

  /** The bench arguments every worker runs. */
  public List<String> args() {
    return args;
  }

  /**
   * NTP-style: {@link #CLOCK_SAMPLES} round trips of {@code GET /time}; the one with the shortest
   * round trip gives offset = T − (t0 + t1) / 2, its error at most half that round trip.
   */
  private void syncClock() {
    awaitCoordinator();
    long best = Long.MAX_VALUE;
    for (int i = 0; i < CLOCK_SAMPLES; i++) {
      long t0 = now();
      JsonNode reply = get("/time");
      long t1 = now();
      if (t1 - t0 < best) {
        best = t1 - t0;
        offsetNanos = reply.get("now_ns").asLong() - (t0 + t1) / 2;
      }
    }
    rttNanos = best;
  }

  /**
   * Waits up to {@link #CONNECT_NANOS} for the coordinator to answer: pods of a Job start in any
   * order, a worker often before the coordinator's Service has an endpoint.
   */
  private void awaitCoordinator() {
    long deadline = ticker.nanos() + CONNECT_NANOS;
    while (true) {
      try {
        get("/time");
        return;
      } catch (RunFailedException e) {
        if (ticker.nanos() > deadline) {
          throw e;
        }
        LockSupport.parkNanos(1_000_000_000L); // 1 s between tries
      }
    }
  }

  private long now() {
    return epochNanosAtStart + (ticker.nanos() - tickerAtStart);
  }

  /** Waits for stage {@code ordinal}'s barrier, then until its start instant on this clock. */
  public void awaitStage(int ordinal) {
    JsonNode reply = post("/stage", MAPPER.createObjectNode().put("index", index).put("stage", ordinal));
    long startLocal = reply.get("start_at_ns").asLong() - offsetNanos;
    long wait;
    while ((wait = startLocal - now()) > 0) {
      LockSupport.parkNanos(wait);
    }
    long late = now() - startLocal;
    if (late > 50_000_000L) {
      err.printf(java.util.Locale.ROOT, "tokenmeter worker: stage %d started %.1f ms after the agreed instant%n",
          ordinal + 1, late / 1e6);
    }
  }

  /** Streams {@code dir}'s results to the coordinator every second until {@link #done}. */
  public void startStreaming(Path dir) {
    this.outDir = dir;
    streamer = Thread.ofPlatform().daemon().name("tokenmeter-worker-stream").start(() -> {
      while (!stopping) {
        LockSupport.parkNanos(STREAM_NANOS);
        if (!stopping) {
          try {
            send("/stream", MAPPER.createObjectNode());
          } catch (RunFailedException e) {
            err.println("tokenmeter worker: " + e.getMessage());
          }
        }
      }
    });
  }

  /** Sends what is left of the results and the bench's exit code. */
  public void done(int exitCode) {
    stopping = true;
    if (streamer != null) {
      try {
        streamer.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    send("/done", MAPPER.createObjectNode().put("exit_code", exitCode));
  }

  private synchronized void send(String path, ObjectNode body) {
    body.put("index", index);
    body.put("lines", outDir == null ? "" : newLines());
    JsonNode summary = outDir == null ? null : changedSummary();
    if (summary != null) {
      body.set("summary", summary);
    }
    post(path, body);
  }

  /** The whole lines appended to requests.jsonl since the last call (a torn last line waits). */
  private String newLines() {
    Path file = outDir.resolve("requests.jsonl");
    if (!Files.isRegularFile(file)) {
      return "";
    }
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      long length = f.length();
      if (length <= jsonlOffset) {
        return "";
      }
      byte[] bytes = new byte[(int) Math.min(length - jsonlOffset, 64L << 20)];
      f.seek(jsonlOffset);
      f.readFully(bytes);
      int end = bytes.length;
      while (end > 0 && bytes[end - 1] != '\n') {
        end--;
      }
      jsonlOffset += end;
      return new String(bytes, 0, end, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new RunFailedException("cannot read " + file + ": " + e.getMessage());
    }
  }

  private JsonNode changedSummary() {
    Path file = outDir.resolve("summary.json");
    try {
      if (!Files.isRegularFile(file)) {
        return null;
      }
      long modified = Files.getLastModifiedTime(file).toMillis() ^ Files.size(file);
      if (modified == summaryModified) {
        return null;
      }
      JsonNode tree = MAPPER.readTree(file.toFile());
      summaryModified = modified;
      return tree;
    } catch (IOException e) {
      return null; // being replaced right now: the next second sends it
    }
  }

  private JsonNode get(String path) {
    return call(HttpRequest.newBuilder(coordinator.resolve(path)).GET().timeout(Duration.ofSeconds(10)).build());
  }

  private JsonNode post(String path, JsonNode body) {
    try {
      return call(HttpRequest.newBuilder(coordinator.resolve(path))
          .POST(HttpRequest.BodyPublishers.ofByteArray(MAPPER.writeValueAsBytes(body)))
          .header("Content-Type", "application/json").build());
    } catch (IOException e) {
      throw new RunFailedException("cannot encode a message to the coordinator: " + e.getMessage());
    }
  }

  private JsonNode call(HttpRequest request) {
    try {
      HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      JsonNode reply = r.body().length == 0 ? MAPPER.createObjectNode() : MAPPER.readTree(r.body());
      if (r.statusCode() != 200) {
        throw new RunFailedException("the coordinator at " + coordinator + " answered " + r.statusCode() + " to "
            + request.uri().getPath() + ": " + reply.path("error").asText(""));
      }
      return reply;
    } catch (IOException e) {
      throw new RunFailedException("cannot reach the coordinator at " + coordinator + ": " + e.getMessage()
          + ". Check --coordinator and that bench --workers is running");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RunFailedException("interrupted while talking to the coordinator");
    }
  }

  private static String host() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown";
    }
  }

  @Override
  public void close() {
    stopping = true;
    http.close();
  }
}
