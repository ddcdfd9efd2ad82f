package dev.tokenmeter.run;

import dev.tokenmeter.core.metrics.LiveStats;
import java.io.PrintStream;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * A live one-line status on a terminal, redrawn in place every half second. Silent when the output
 * is not a terminal (logs and CI stay clean).
 */
public final class ProgressLine implements AutoCloseable {
  private static final long PERIOD_MILLIS = 500;
  private final PrintStream err;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile Supplier<String> source = () -> null;

  public ProgressLine(PrintStream err, boolean enabled) {
    this.err = err;
    this.thread = new Thread(this::loop, "tokenmeter-progress");
    thread.setDaemon(true);
    if (enabled) {
      thread.start();
    }
  }

  /** True when stderr is an interactive terminal. */
  public static boolean isTerminal() {
    var console = System.console();
    if (console == null) {
      return false;
    }
    try { // Console.isTerminal() exists from Java 22; on 21 a non-null console is a terminal
      return (Boolean) console.getClass().getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }

  /** What to show: a label and a live-stats supplier (called from this thread). */
  public void show(String label, Supplier<LiveStats> stats) {
    source = () -> format(label, stats.get());
  }

  public static String format(String label, LiveStats s) {
    if (s == null) {
      return label + "  starting";
    }
    return String.format(
        Locale.ROOT,
        "%s  %-8s %6.1fs  in flight %4d  done %6d  failed %4d  %8.0f tok/s  TTFT p50 %s",
        label,
        s.phase() == null ? "" : s.phase().wireName(),
        s.elapsedNanos() / 1e9,
        s.inFlight(),
        s.completed(),
        s.failed(),
        s.outputTokensPerSecond(),
        s.ttftP50Nanos() < 0 ? "-" : String.format(Locale.ROOT, "%.0f ms", s.ttftP50Nanos() / 1e6));
  }

  private void loop() {
    while (running) {
      String line = source.get();
      if (line != null) {
        synchronized (err) {
          err.print("\r\033[K" + line);
          err.flush();
        }
      }
      try {
        Thread.sleep(PERIOD_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Stops redrawing and clears the line, before other output. */
  public void pause() {
    source = () -> null;
    clear();
  }

  private void clear() {
    if (thread.isAlive()) {
      synchronized (err) {
        err.print("\r\033[K");
        err.flush();
      }
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    clear();
  }
}
