package dev.tokenmeter.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A short {@code tokenmeter bench} run from Java, against any endpoint that speaks one of the
 * bench's APIs: an LLM server, a {@link Simulator}, or the application's own OpenAI-compatible
 * endpoint. The result is the run's {@code summary.json} (docs/METRICS.md), so a test asserts on
 * exactly the figures the command line reports.
 *
 * <pre>{@code
 * LoadResult r = LoadTest.against("http://127.0.0.1:8080").api("chat").model("my-app")
 *     .concurrency(4).duration(Duration.ofSeconds(5)).slo("ttft.p99<=800ms").run();
 * assertTrue(r.sloMet(), r.describe());
 * double p99 = r.ttftMillis("p99");
 * }</pre>
 *
 * <p>The run is a separate JVM ({@code java -cp <this class path> dev.tokenmeter.cli.Main bench
 * ...}): the load generator does not share the heap, the CPU accounting and the event loops of the
 * application under test, and the tool's own checks of its client (docs/METRICS.md) stay valid.
 * Not thread-safe; each {@link #run()} starts one process.
 */
public final class LoadTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String url;
  private String api = "chat";
  private String model;
  private int concurrency = 2;
  private Duration duration = Duration.ofSeconds(5);
  private Duration warmup = Duration.ofSeconds(1);
  private final List<String> slos = new ArrayList<>();
  private final List<String> extra = new ArrayList<>();
  private Path out;
  private Duration timeout = Duration.ofMinutes(2);

  private LoadTest(String url) {
    this.url = Objects.requireNonNull(url, "url");
    if (!url.startsWith("http://") && !url.startsWith("https://")) {
      throw new IllegalArgumentException("LoadTest.against needs an http(s) URL, e.g. http://127.0.0.1:8080; got " + url);
    }
  }

  /** A load test of the server at {@code url} (its root: {@code http://host:port}). */
  public static LoadTest against(String url) {
    return new LoadTest(url);
  }

  /** The bench's {@code --api}: chat (default), completions, anthropic, responses, gemini, tgi, ollama. */
  public LoadTest api(String api) {
    this.api = Objects.requireNonNull(api, "api");
    return this;
  }

  /** The model sent in each request ({@code --model}); default: the first the server lists. */
  public LoadTest model(String model) {
    this.model = model;
    return this;
  }

  /** Virtual users, each sending its next request when the last ended ({@code --concurrency}; default 2). */
  public LoadTest concurrency(int users) {
    if (users < 1) {
      throw new IllegalArgumentException("LoadTest.concurrency must be at least 1, got " + users);
    }
    this.concurrency = users;
    return this;
  }

  /** The measurement window ({@code --duration}; default 5 s). */
  public LoadTest duration(Duration d) {
    this.duration = positive(d, "duration");
    return this;
  }

  /** The warm-up before the window ({@code --warmup}; default 1 s). */
  public LoadTest warmup(Duration d) {
    if (d == null || d.isNegative()) {
      throw new IllegalArgumentException("LoadTest.warmup must be 0 or more, got " + d);
    }
    this.warmup = d;
    return this;
  }

  /** An SLO in the bench's grammar ({@code --slo}, docs/METRICS.md), e.g. {@code ttft.p99<=800ms}; repeatable. */
  public LoadTest slo(String slo) {
    slos.add(Objects.requireNonNull(slo, "slo"));
    return this;
  }

  /** Any other bench options, e.g. {@code "--output-tokens", "64"} (see {@code tokenmeter bench --help}). */
  public LoadTest options(String... options) {
    extra.addAll(List.of(options));
    return this;
  }

  /** Where the run's files go ({@code --out}); default a new temporary folder. */
  public LoadTest out(Path dir) {
    this.out = dir;
    return this;
  }

  /** How long the run may take before it is stopped (default 2 min). */
  public LoadTest timeout(Duration d) {
    this.timeout = positive(d, "timeout");
    return this;
  }

  /** The command line's arguments after {@code tokenmeter}. */
  public List<String> arguments(Path outDir) {
    List<String> args = new ArrayList<>(List.of("bench", "--url", url, "--api", api,
        "--concurrency", Integer.toString(concurrency), "--duration", millis(duration),
        "--warmup", millis(warmup), "--out", outDir.toString(), "-q"));
    if (model != null) {
      args.addAll(List.of("--model", model));
    }
    for (String s : slos) {
      args.addAll(List.of("--slo", s));
    }
    args.addAll(extra);
    return args;
  }

  /**
   * Runs the bench and reads its summary.
   *
   * @throws IllegalStateException when the bench could not run (bad options, the target down),
   *     with its message; an SLO that was missed is a result ({@link LoadResult#sloMet()}), not an exception
   */
  public LoadResult run() {
    try {
      Path dir = out != null ? Files.createDirectories(out) : Files.createTempDirectory("tokenmeter-loadtest");
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      // the launcher's options for a small closed-loop run (scripts/heap-for-run.sh)
      command.addAll(List.of("-Xmx512m", "-Xss512k", "-XX:+UseSerialGC", "-Dio.netty.leakDetection.level=disabled",
          "--enable-native-access=ALL-UNNAMED", "-cp",
          System.getProperty("java.class.path"), "dev.tokenmeter.cli.Main"));
      command.addAll(arguments(dir));
      Path log = dir.resolve("bench.log");
      Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly().waitFor();
        throw new IllegalStateException("LoadTest: the bench ran past its timeout of " + timeout + "; see " + log);
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      Path summary = dir.resolve("summary.json");
      if (p.exitValue() != 0 && p.exitValue() != 3 || !Files.isRegularFile(summary)) {
        throw new IllegalStateException("LoadTest: tokenmeter bench exited " + p.exitValue() + ": " + output.strip());
      }
      JsonNode json = JSON.readTree(summary.toFile());
      return new LoadResult(json, p.exitValue(), output, dir);
    } catch (IOException e) {
      throw new UncheckedIOException("LoadTest: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("LoadTest: interrupted", e);
    }
  }

  private static String millis(Duration d) {
    return d.toMillis() + "ms";
  }

  private static Duration positive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("LoadTest." + what + " must be more than 0, got " + d);
    }
    return d;
  }
}
