package dev.tokenmeter.testkit;

import dev.tokenmeter.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs the {@code tokenmeter} command line in this JVM through {@link Main#run(String...)}, with
 * {@code System.out} and {@code System.err} captured. Runs are serialized (the streams are global);
 * the previous streams are restored afterwards.
 */
public final class Cli {
  private static final Object LOCK = new Object();

  private Cli() {}

  /**
   * What a run printed and returned.
   *
   * @param exitCode {@link Main#run}'s exit code
   * @param out everything written to standard output
   * @param err everything written to standard error
   */
  public record Result(int exitCode, String out, String err) {
    /** Both streams, for assertion messages. */
    public String both() {
      return "--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
  }

  /**
   * Runs {@code tokenmeter simulate -q --out OUT}, then the {@code plan} arguments, then {@code more}
   * (a common plan and what differs between runs).
   *
   * @throws AssertionError with both streams when it does not exit 0
   */
  public static void simulate(Path out, String[] plan, String... more) {
    List<String> args = new ArrayList<>(List.of("simulate", "-q", "--out", out.toString()));
    args.addAll(Arrays.asList(plan));
    args.addAll(Arrays.asList(more));
    Result r = run(args.toArray(String[]::new));
    if (r.exitCode() != 0) {
      throw new AssertionError("simulate exited " + r.exitCode() + "\n" + r.both());
    }
  }

  /** Runs {@code args}. */
  public static Result run(String... args) {
    return run(line -> {}, args);
  }

  /** Runs {@code args}, handing every complete line of standard error to {@code errLines} live. */
  public static Result run(Consumer<String> errLines, String... args) {
    synchronized (LOCK) {
      PrintStream oldOut = System.out;
      PrintStream oldErr = System.err;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      LineTee err = new LineTee(errLines);
      try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
          PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
        System.setOut(o);
        System.setErr(e);
        int code = Main.run(args);
        o.flush();
        e.flush();
        return new Result(
            code, out.toString(StandardCharsets.UTF_8), err.all.toString(StandardCharsets.UTF_8));
      } finally {
        System.setOut(oldOut);
        System.setErr(oldErr);
      }
    }
  }

  /** Keeps every byte and passes each finished line on. Synchronized: any thread may print. */
  private static final class LineTee extends OutputStream {
    final ByteArrayOutputStream all = new ByteArrayOutputStream();
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final Consumer<String> lines;

    LineTee(Consumer<String> lines) {
      this.lines = lines;
    }

    @Override
    public synchronized void write(int b) {
      all.write(b);
      if (b == '\n') {
        lines.accept(line.toString(StandardCharsets.UTF_8));
        line.reset();
      } else {
        line.write(b);
      }
    }
  }
}
