package dev.tokenmeter.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tokenmeter.core.time.Ticker;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The coordinator of {@code bench --workers N}: a small HTTP control API that N workers ({@code
 * tokenmeter worker}, {@link WorkerLink}) register with, that holds each stage's start barrier,
 * receives each worker's stream of {@code requests.jsonl} lines and {@code summary.json} (with its
 * encoded HdrHistograms), notices a worker lost, and at the end writes one results folder
 * ({@link WorkerResults}). Launches the workers as child processes of this JVM, or waits for ones
 * started elsewhere (Kubernetes: {@code k8s render}).
 *
 * <p>The API, JSON in and out, times in nanoseconds of the coordinator's clock (an epoch reading
 * at start plus the monotonic ticker since):
 *
 * <pre>
 * GET  /time                                       {"now_ns": T}
 * POST /register {"index": i|-1, "host", "pid", "clock_offset_ns", "rtt_ns"}
 *                                                  {"index": i, "workers": N, "args": [bench args]}
 * POST /stage    {"index": i, "stage": s}          blocks until every live worker reached stage s;
 *                                                  {"start_at_ns": T}
 * POST /stream   {"index": i, "lines": "...", "summary": {...}|null}   {} (every second: liveness)
 * POST /done     {"index": i, "exit_code": c, "lines", "summary"}      {}
 * </pre>
 *
 * <p>Thread-safety: the HTTP threads and {@link #run}'s thread share the worker table under this
 * object's monitor; barriers wait on it.
 */
public final class Coordinator implements AutoCloseable {
  /* design notes
   * - Start barrier: each worker measures its clock's offset from the coordinator's before it
   *   registers, NTP-style (8 round trips of GET /time, the one with the shortest round trip: offset
   *   = T_server − (t0 + t1) / 2, error at most half that round trip). A stage starts at an agreed
   *   coordinator instant LEAD_NANOS after the last live worker arrived; each worker sleeps until
   *   that instant on its own clock less its offset.
   * - Liveness: a worker streams every second; one silent for SILENT_NANOS, or a child process that
   *   exited before POST /done, is lost. The barriers then count only the live workers, so the
   *   run goes on.
   */
  static final long LEAD_NANOS = 1_000_000_000L; // 1 s: covers a round trip and a wake-up on a loaded host
  static final long SILENT_NANOS = 10_000_000_000L; // 10 s: ten missed streams
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * What the coordinator needs.
   *
   * @param workers how many workers the run has
   * @param listen the address the control API binds (port 0: any free one)
   * @param workerArgs the bench arguments each worker runs (its shard and --out are its own)
   * @param shares each worker's share, for the results ({@code "c=4 (users 0, 2, 4, ...)"})
   * @param outDir the run's results folder
   * @param launchLocal start the workers as child processes here; else wait for them to register
   * @param registerTimeoutNanos how long to wait for every worker to register
   */
  public record Settings(
      int workers, InetSocketAddress listen, List<String> workerArgs, List<String> shares, Path outDir,
      boolean launchLocal, long registerTimeoutNanos) {
    public Settings {
      workerArgs = List.copyOf(workerArgs);
      shares = List.copyOf(shares);
      if (workers < 1 || shares.size() != workers) {
        throw new IllegalArgumentException("--workers must be 1 or more, got " + workers);
      }
    }
  }

  /** One worker as the coordinator sees it. Guarded by the coordinator's monitor. */
  static final class Worker {
    final int index;
    String host;
    long pid = -1;
    long clockOffsetNanos;
    long rttNanos;
    boolean registered;
    boolean done;
    boolean lost;
    String lostReason;
    int stageReached = -1;
    long lastSeenNanos;
    int exitCode = -1;
    long lines;
    boolean summary;
    Process process;

    Worker(int index) {
      this.index = index;
    }

    boolean live() {
      return registered && !done && !lost;
    }
  }

  private final Settings s;
  private final Ticker ticker;
  private final long epochNanosAtStart;
  private final long tickerAtStart;
  private final HttpServer http;
  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "tokenmeter-coordinator");
    t.setDaemon(true);
    return t;
  });
  private final List<Worker> workers = new ArrayList<>();
  private final Map<Integer, Long> stageStarts = new HashMap<>();
  private String failure;
  private final java.util.concurrent.atomic.AtomicLong receivedBytes = new java.util.concurrent.atomic.AtomicLong();

  private Coordinator(Settings s, Ticker ticker, HttpServer http) {
    this.s = s;
    this.ticker = ticker;
    Instant now = Instant.now();
    this.epochNanosAtStart = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    this.tickerAtStart = ticker.nanos();
    this.http = http;
    for (int i = 0; i < s.workers(); i++) {
      workers.add(new Worker(i));
    }
  }

  /** Binds the control API; a port in use is a {@link RunFailedException} naming the fix. */
  public static Coordinator start(Settings s, Ticker ticker) {
    HttpServer http;
    try {
      http = HttpServer.create(s.listen(), 64);
    } catch (IOException e) {
      throw new RunFailedException("cannot listen on " + s.listen().getHostString() + ":" + s.listen().getPort()
          + " for the workers: " + e.getMessage() + ". Choose another --coordinator-listen HOST:PORT");
    }
    Coordinator c = new Coordinator(s, ticker, http);
    http.createContext("/", c::handle);
    http.setExecutor(c.pool);
    http.start();
    return c;
  }

  /** {@code http://127.0.0.1:PORT}: where workers reach the API. */
  public URI url() {
    InetSocketAddress a = http.getAddress();
    String host = a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getAddress().getHostAddress();
    return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort());
  }

  /** The coordinator's clock: epoch nanoseconds, monotonic from its start. */
  long nowNanos() {
    return epochNanosAtStart + (ticker.nanos() - tickerAtStart);
  }

  /**
   * Launches the local workers (when asked), waits until every worker is done or lost, and returns
   * the workers' final state for {@link WorkerResults}. A worker that did not register in time is
   * a {@link RunFailedException}.
   */
  public List<WorkerResults.WorkerState> run(PrintStream err) {
    try {
      Files.createDirectories(s.outDir().resolve("workers"));
    } catch (IOException e) {
      throw new RunFailedException("cannot write " + s.outDir() + ": " + e.getMessage());
    }
    if (s.launchLocal()) {
      for (Worker w : workers) {
        launch(w);
      }
    }
    long registerBy = ticker.nanos() + s.registerTimeoutNanos();
    synchronized (this) {
      while (true) {
        long now = ticker.nanos();
        watch(now, err);
        if (workers.stream().allMatch(w -> w.done || w.lost)) {
          break;
        }
        if (now > registerBy && workers.stream().anyMatch(w -> !w.registered && !w.lost)) {
          failure = "only " + workers.stream().filter(w -> w.registered).count() + " of " + s.workers()
              + " workers registered with " + url() + " within " + s.registerTimeoutNanos() / 1_000_000_000L + " s";
          notifyAll();
          workers.forEach(w -> {
            if (w.process != null) {
              w.process.destroy();
            }
          });
          throw new RunFailedException(failure + "; check that the workers reach the coordinator (docs/WORKERS.md)");
        }
        try {
          wait(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      return workers.stream().map(w -> new WorkerResults.WorkerState(w.index, s.shares().get(w.index), w.host,
          w.pid, w.clockOffsetNanos, w.rttNanos, w.done && !w.lost, w.lostReason, w.exitCode, w.lines,
          s.outDir().resolve("workers").resolve("worker-" + w.index))).toList();
    }
  }

  /** Marks silent or exited workers lost (holding the monitor). */
  private void watch(long now, PrintStream err) {
    for (Worker w : workers) {
      if (w.done || w.lost) {
        continue;
      }
      String reason = null;
      if (w.process != null && !w.process.isAlive()) {
        reason = "its process exited with code " + w.process.exitValue() + " before it reported";
      } else if (w.registered && now - w.lastSeenNanos > SILENT_NANOS) {
        reason = "silent for " + SILENT_NANOS / 1_000_000_000L + " s";
      }
      if (reason != null) {
        w.lost = true;
        w.lostReason = reason;
        err.println("tokenmeter: worker " + w.index + " lost (" + reason + "); the run goes on without its share "
            + s.shares().get(w.index));
        notifyAll();
      }
    }
  }

  private void launch(Worker w) {
    Path dir = s.outDir().resolve("workers").resolve("worker-" + w.index);
    List<String> cmd = workerCommand(ProcessHandle.current().info().command().orElse("java"),
        java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments(),
        System.getProperty("java.class.path"), url(), w.index);
    try {
      Files.createDirectories(dir);
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(dir.resolve("worker.log").toFile()).start();
      synchronized (this) {
        w.process = p;
      }
      p.onExit().thenRun(() -> {
        synchronized (this) {
          notifyAll();
        }
      });
    } catch (IOException e) {
      throw new RunFailedException("cannot start worker " + w.index + ": " + e.getMessage());
    }
  }

  /**
   * The command line of local worker {@code index}: {@code java}, this JVM's own options ({@code
   * jvmArgs}, its input arguments: the launcher's heap cap, collector, AOT cache, out-of-memory
   * handler, system properties), the class path and the worker command. Without the options a
   * worker ran on the JVM's defaults (a heap of 1/4 of RAM, G1, no AOT cache) while the coordinator
   * ran on the launcher's, so a --workers run measured another client than a plain run. Left out:
   * what must not be shared by two processes (a debugger's port, an AOT training's output file, a
   * log file both would write).
   */
  static List<String> workerCommand(String java, List<String> jvmArgs, String classPath, URI coordinator, int index) {
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    for (String a : jvmArgs) {
      if (!privateToOneProcess(a)) {
        cmd.add(a);
      }
    }
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add("dev.tokenmeter.cli.Main");
    cmd.addAll(List.of("worker", "--coordinator", coordinator.toString(), "--index", Integer.toString(index)));
    return cmd;
  }

  /** A JVM option naming something one process owns: a debug agent's port, an output file. */
  private static boolean privateToOneProcess(String arg) {
    return arg.startsWith("-agentlib:jdwp") || arg.startsWith("-Xrunjdwp") || arg.startsWith("-XX:AOTCacheOutput")
        || arg.startsWith("-XX:AOTConfiguration") || arg.startsWith("-XX:AOTMode=record")
        || arg.startsWith("-XX:AOTMode=create") || arg.startsWith("-XX:StartFlightRecording")
        || arg.startsWith("-XX:FlightRecorderOptions") || (arg.startsWith("-Xlog:") && arg.contains("file="))
        || arg.startsWith("-XX:HeapDumpPath") || arg.startsWith("-XX:ErrorFile");
  }

  // ---- the HTTP API ----

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      JsonNode body = "POST".equals(ex.getRequestMethod()) ? read(ex.getRequestBody()) : null;
      ObjectNode reply = MAPPER.createObjectNode();
      int status = 200;
      switch (ex.getRequestURI().getPath()) {
        case "/time" -> reply.put("now_ns", nowNanos());
        case "/register" -> status = register(body, reply);
        case "/stage" -> status = stage(body, reply);
        case "/stream" -> status = stream(body, false, reply);
        case "/done" -> status = stream(body, true, reply);
        default -> {
          status = 404;
          reply.put("error", "no such endpoint");
        }
      }
      byte[] bytes = MAPPER.writeValueAsBytes(reply);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    } catch (RuntimeException e) {
      ex.sendResponseHeaders(500, -1);
    }
  }

  private JsonNode read(InputStream in) throws IOException {
    byte[] bytes = in.readAllBytes();
    received(bytes.length);
    return bytes.length == 0 ? MAPPER.createObjectNode() : MAPPER.readTree(bytes);
  }

  private synchronized int register(JsonNode b, ObjectNode reply) {
    int asked = b.path("index").asInt(-1);
    Worker w = null;
    if (asked >= 0 && asked < workers.size()) {
      w = workers.get(asked);
    } else if (asked < 0) {
      w = workers.stream().filter(x -> !x.registered && x.process == null).findFirst().orElse(null);
    }
    if (w == null || w.registered || failure != null) {
      reply.put("error", w == null ? "no free worker slot (" + s.workers() + " workers)"
          : failure != null ? failure : "worker " + w.index + " already registered");
      return 409;
    }
    w.registered = true;
    w.host = b.path("host").asText(null);
    w.pid = b.path("pid").asLong(-1);
    w.clockOffsetNanos = b.path("clock_offset_ns").asLong();
    w.rttNanos = b.path("rtt_ns").asLong();
    w.lastSeenNanos = ticker.nanos();
    reply.put("index", w.index).put("workers", s.workers());
    s.workerArgs().forEach(reply.putArray("args")::add);
    notifyAll();
    return 200;
  }

  private synchronized int stage(JsonNode b, ObjectNode reply) {
    Worker w = workers.get(b.path("index").asInt());
    int stage = b.path("stage").asInt();
    w.stageReached = Math.max(w.stageReached, stage);
    w.lastSeenNanos = ticker.nanos();
    notifyAll();
    while (failure == null && !w.lost && !reached(stage)) {
      try {
        wait(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 503;
      }
    }
    if (failure != null || w.lost) {
      reply.put("error", failure != null ? failure : "worker " + w.index + " was declared lost");
      return 410;
    }
    long start = stageStarts.computeIfAbsent(stage, k -> nowNanos() + LEAD_NANOS);
    reply.put("start_at_ns", start);
    return 200;
  }

  /** Every worker registered and every live one at {@code stage} or past it. */
  private boolean reached(int stage) {
    return workers.stream().allMatch(w -> w.lost || w.done || (w.registered && w.stageReached >= stage));
  }

  private int stream(JsonNode b, boolean last, ObjectNode reply) throws IOException {
    int index = b.path("index").asInt(-1);
    if (index < 0 || index >= workers.size()) {
      return 404;
    }
    Worker w = workers.get(index);
    synchronized (this) {
      if (w.lost) {
        reply.put("error", "worker " + index + " was declared lost: " + w.lostReason);
        return 410;
      }
      w.lastSeenNanos = ticker.nanos();
    }
    Path dir = s.outDir().resolve("workers").resolve("worker-" + index);
    Files.createDirectories(dir);
    String lines = b.path("lines").asText("");
    long count = lines.chars().filter(c -> c == '\n').count();
    synchronized (w) { // one worker's posts are sequential; this keeps a retried one in order anyway
      if (!lines.isEmpty()) {
        Files.writeString(dir.resolve("requests.jsonl"), lines, StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      }
      if (b.path("summary").isObject()) {
        Path tmp = dir.resolve("summary.json.tmp");
        MAPPER.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), b.get("summary"));
        Files.move(tmp, dir.resolve("summary.json"), StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
      }
    }
    synchronized (this) {
      w.lines += count;
      w.summary |= b.path("summary").isObject();
      if (last) {
        w.done = true;
        w.exitCode = b.path("exit_code").asInt(-1);
        notifyAll();
      }
    }
    return 200;
  }

  private void received(long bytes) {
    receivedBytes.addAndGet(bytes);
  }

  /** Bytes of request bodies the workers sent (streams, summaries, barriers), for the overhead line. */
  public long receivedBytes() {
    return receivedBytes.get();
  }

  @Override
  public void close() {
    http.stop(0);
    pool.shutdownNow();
    synchronized (this) {
      for (Worker w : workers) {
        if (w.process != null && w.process.isAlive()) {
          w.process.destroy();
        }
      }
    }
  }
}
