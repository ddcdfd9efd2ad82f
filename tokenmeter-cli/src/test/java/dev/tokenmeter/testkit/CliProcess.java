package dev.tokenmeter.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;

/**
 * The {@code tokenmeter} command line in a child JVM (this JVM's java and class path), so a test
 * can signal or kill it as a user would: {@code kill -INT}, {@code -TERM}, {@code -KILL}. Standard
 * error is collected line by line; standard output is discarded. Closing kills what is left.
 *
 * <pre>{@code
 * try (CliProcess p = CliProcess.start("bench", "--url", url, "--out", dir)) {
 *   p.awaitErrLine(l -> l.startsWith("Stage 1/1"), Duration.ofSeconds(30));
 *   p.signal("TERM");
 *   int code = p.waitFor(Duration.ofSeconds(20));
 * }
 * }</pre>
 */
public final class CliProcess implements AutoCloseable {
  private final Process process;
  private final StringBuilder err = new StringBuilder();
  private final List<Predicate<String>> waits = new ArrayList<>();
  private final List<CountDownLatch> latches = new ArrayList<>();
  private final Thread reader;

  private CliProcess(Process process) {
    this.process = process;
    this.reader = new Thread(this::readErr, "cli-process-stderr");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code tokenmeter args...} from this JVM's class path. */
  public static CliProcess start(String... args) throws IOException, InterruptedException {
    return start(Map.of(), args);
  }

  /**
   * Starts {@code tokenmeter args...} from this JVM's class path, with {@code env} added to the
   * environment it inherits (a secret such as {@code PGPASSWORD}, never on the command line).
   */
  public static CliProcess start(Map<String, String> env, String... args) throws IOException, InterruptedException {
    return start(List.of("-cp", System.getProperty("java.class.path"), "dev.tokenmeter.cli.Main"), env, args);
  }

  /** Starts {@code java -jar jar args...}: the packaged command as users run it. */
  public static CliProcess startJar(Path jar, String... args) throws IOException, InterruptedException {
    return start(List.of("-jar", jar.toString()), Map.of(), args);
  }

  private static CliProcess start(List<String> main, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(launcher());
    command.addAll(List.of("-Xmx384m", "--enable-native-access=ALL-UNNAMED"));
    command.addAll(main);
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    builder.environment().putAll(env);
    return new CliProcess(builder.start());
  }

  /** The child's process id. */
  public long pid() {
    return process.pid();
  }

  /** Waits until a line of standard error matches {@code line}; false when time ran out first. */
  public boolean awaitErrLine(Predicate<String> line, Duration timeout) throws InterruptedException {
    CountDownLatch latch = new CountDownLatch(1);
    synchronized (err) {
      for (String l : err.toString().split("\n")) {
        if (line.test(l)) {
          return true;
        }
      }
      waits.add(line);
      latches.add(latch);
    }
    return latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Sends {@code SIGname} ({@code "INT"}, {@code "TERM"}, {@code "KILL"}) with kill(1). */
  public void signal(String name) throws IOException, InterruptedException {
    int rc = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start().waitFor();
    if (rc != 0) {
      throw new IllegalStateException("kill -" + name + " " + process.pid() + " exited " + rc);
    }
  }

  /**
   * Sends SIGKILL at once ({@link Process#destroyForcibly()}): unlike {@code signal("KILL")} it
   * starts no kill(1) process, which takes from a few to a few hundred ms on a busy machine.
   */
  public void kill() {
    process.destroyForcibly();
  }

  /** Waits for the exit and returns its code; throws when it did not end in time. */
  public int waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("tokenmeter did not exit within " + timeout + "; stderr:\n" + err());
    }
    reader.join(5_000);
    return process.exitValue();
  }

  /** Everything read from standard error so far. */
  public String err() {
    synchronized (err) {
      return err.toString();
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }

  private void readErr() {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        synchronized (err) {
          err.append(line).append('\n');
          for (int i = 0; i < waits.size(); i++) {
            if (waits.get(i).test(line)) {
              latches.get(i).countDown();
            }
          }
        }
      }
    } catch (IOException e) {
      // the process ended
    }
  }

  /**
   * This JVM's java, behind {@code env --default-signal=INT} where available: a process started in
   * the background by a non-interactive shell inherits SIGINT as ignored, and a JVM that starts
   * with SIGINT ignored never installs its handler (the signal would then do nothing).
   */
  public static List<String> launcher() throws IOException, InterruptedException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Process probe =
        new ProcessBuilder("env", "--default-signal=INT", "true")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (probe.waitFor(5, TimeUnit.SECONDS) && probe.exitValue() == 0) {
      return List.of("env", "--default-signal=INT", java);
    }
    Assumptions.assumeFalse(sigintIgnored(), "SIGINT is ignored here and env cannot reset it");
    return List.of(java);
  }

  private static boolean sigintIgnored() throws IOException {
    Path status = Path.of("/proc/self/status");
    if (!Files.isReadable(status)) {
      return false; // not Linux: assume the default disposition
    }
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & (1L << 1)) != 0;
      }
    }
    return false;
  }
}
