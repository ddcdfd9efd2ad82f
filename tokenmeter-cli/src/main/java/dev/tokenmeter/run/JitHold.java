package dev.tokenmeter.run;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Keeps the JVM's optimising compiler (C2) from compiling during a stage's measurement window once
 * the JIT has settled, when the client has one CPU and the stage has a warm-up: what was made hot
 * by then stays compiled, what would reach C2 later is compiled by C1 instead. One per stage; its
 * methods may be called from any thread.
 *
 * <pre>
 * design notes
 * - Why: on one CPU a C2 compiler thread that the event loop wakes (a method became hot) runs on
 *   the loop's CPU for 1.6 to 5.2 ms, and every read due meanwhile is stamped that late. In a
 *   100-stream run after a 20 s warm-up, C2 still compiled 103 methods in the 20 s window
 *   (per-request paths reach its thresholds slowly) and most clusters of late reads began within
 *   8 ms of one (-Xlog:jit+compilation joined with the server's ground truth). Lowering the
 *   compiler threads' priority does not help: nice 19 still preempts on this kernel, and
 *   SCHED_IDLE starves a thread that holds the compile queue's lock the loop then waits for
 *   (ITL p99 error rose from 0.26-0.66 to 1.1-1.5 ms). docs/PERFORMANCE.md, "The optimising
 *   compiler held out of the window".
 * - How: a compiler directive ({@code c2: Exclude}) pushed through the DiagnosticCommand MBean
 *   (jcmd's Compiler.directives_add), popped when the stage ends, so the next stage's warm-up
 *   compiles again. A method whose C2 compilation the directive refused stays with C1 (HotSpot
 *   marks it not compilable at that level). About 0.2 ms to push, once prepared: the platform
 *   MBean server and the command's path are started when the warm-up starts, because their first
 *   use loads and compiles a few hundred methods (252 compilations in the second the hold engaged,
 *   6 once prepared; 100 streams after a 20 s warm-up, -Xlog:jit+compilation), work that landed
 *   in the window it was meant to keep quiet.
 * - When: from the window's start, at the first moment the JIT has spent at most SETTLED_MILLIS
 *   compiling over the last LOOKBACK_NANOS (CompilationMXBean, sampled every POLL_NANOS). Holding
 *   while it is still busy leaves hot code in C1, which allocates what C2's escape analysis would
 *   not: at 1,000 streams after a 5 s warm-up (the JIT still compiling 0.06-2.5 s a second for
 *   8 s more) a hold at the window's start took young collections from 33-35 to 51-53 in the window
 *   and the TTFT p99 error from +4.3 to +8.8 ms to +5.9 to +17.8 (4 pairs). At 100 streams after
 *   20 s the JIT compiles 0-0.1 s a second and the hold starts with the window.
 * - Only on one CPU: with two or more the compiler threads run beside the loop, and holding C2
 *   would cost CPU per token for nothing. Only after a warm-up: without one nothing is compiled
 *   yet, and holding C2 would leave the whole run in C1's slower code. A trace replay's warm-up
 *   (--trace-warmup) runs before its first stage, outside it, and counts: its stages hold C2 once
 *   the JIT settles in the window.
 * - Off with -Dtokenmeter.jit.hold=false (TOKENMETER_JAVA_OPTS), to compare. A JVM without the
 *   MBean or the command leaves the compiler alone: the hold is an improvement, never a failure.
 * </pre>
 */
final class JitHold {
  /** The system property that turns the hold off ({@code false}). */
  static final String PROPERTY = "tokenmeter.jit.hold";

  /** How often the JIT's compile time is read while the hold waits for it to settle. */
  static final long POLL_NANOS = 250_000_000L;

  /** The span over which the compile time must stay under {@link #SETTLED_MILLIS}. */
  static final long LOOKBACK_NANOS = 2_000_000_000L;

  /** Compile time over {@link #LOOKBACK_NANOS} that counts as settled: 2% of one CPU. */
  static final long SETTLED_MILLIS = 40;

  private static final int SAMPLES = (int) (LOOKBACK_NANOS / POLL_NANOS) + 1;
  private static final String DIRECTIVE = "[{\"match\": \"*.*\", \"c2\": {\"Exclude\": true}}]";
  private static final JitHold NONE = new JitHold(null, () -> -1);

  private final Directives directives;
  private final LongSupplier compileMillis;
  private final long[] samples = new long[SAMPLES];
  private int sampled;
  private boolean held;
  private boolean released;
  private boolean prepared;
  private ScheduledExecutorService poller;

  private JitHold(Directives directives, LongSupplier compileMillis) {
    this.directives = directives;
    this.compileMillis = compileMillis;
  }

  /** What pushes and pops the JVM's compiler directives; the MBean's in a run, a fake in tests. */
  interface Directives {
    /**
     * Loads what {@link #add} needs while loading it costs nothing measured: called once, on the
     * hold's thread, when the warm-up starts.
     */
    default void prepare() {}

    /** Pushes {@code json}; false when the JVM refused it. */
    boolean add(String json);

    /** Pops the directive pushed last. */
    void remove();
  }

  /**
   * The hold for a stage with {@code warmupNanos} of warm-up on a JVM with {@code processors}
   * CPUs, {@code property} being {@link #PROPERTY}'s value (null when unset): one that holds C2
   * after the warm-up, or one that does nothing.
   */
  static JitHold forStage(long warmupNanos, int processors, String property, Directives directives,
      LongSupplier compileMillis) {
    boolean off = property != null && property.strip().equalsIgnoreCase("false");
    return processors == 1 && warmupNanos > 0 && !off ? new JitHold(directives, compileMillis) : NONE;
  }

  /**
   * The hold for a stage of this process: its CPUs, the property, the platform MBean and the JIT's
   * compile time ({@code CompilationMXBean}; none when the JVM does not report it).
   */
  static JitHold forStage(long warmupNanos) {
    var jit = ManagementFactory.getCompilationMXBean();
    LongSupplier millis = jit != null && jit.isCompilationTimeMonitoringSupported()
        ? jit::getTotalCompilationTime : () -> -1;
    return forStage(warmupNanos, Runtime.getRuntime().availableProcessors(), System.getProperty(PROPERTY),
        new MBeanDirectives(), millis);
  }

  /**
   * Loads what the hold's push needs, once: {@link #holdAfter} does it on the hold's thread as the
   * stage's warm-up starts; a warm-up outside the stage (a trace replay's, before its clock starts)
   * calls it first, so that the loading does not land in the window.
   */
  void prepare() {
    synchronized (this) {
      if (!active() || prepared) {
        return;
      }
      prepared = true;
    }
    directives.prepare();
  }

  /** Whether this hold acts at all (one CPU, a warm-up, not turned off). */
  boolean active() {
    return directives != null;
  }

  /**
   * Reads the JIT's compile time every {@link #POLL_NANOS} from {@link #LOOKBACK_NANOS} before the
   * warm-up's end (or at once), on a daemon thread, and holds C2 at the first reading from the
   * warm-up's end on that finds the JIT settled; the readings stop then, or when released.
   */
  void holdAfter(long warmupNanos) {
    if (!active()) {
      return;
    }
    ScheduledExecutorService p = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tokenmeter-jit-hold");
      t.setDaemon(true);
      return t;
    });
    synchronized (this) {
      if (released) {
        p.shutdownNow();
        return;
      }
      poller = p;
    }
    p.execute(this::prepare);
    long first = Math.max(0, warmupNanos - LOOKBACK_NANOS);
    long due = first + (warmupNanos - first + POLL_NANOS - 1) / POLL_NANOS * POLL_NANOS; // a poll at or after it
    long[] polls = {0};
    p.scheduleAtFixedRate(() -> {
      long at = first + polls[0]++ * POLL_NANOS;
      if (sample() && at >= due) {
        hold();
      }
    }, first, POLL_NANOS, TimeUnit.NANOSECONDS);
  }

  /**
   * Takes one reading of the compile time; whether the readings of the last {@link
   * #LOOKBACK_NANOS} show the JIT settled (false until there are enough of them, and always when
   * the JVM reports no compile time).
   */
  synchronized boolean sample() {
    long now = compileMillis.getAsLong();
    samples[sampled % SAMPLES] = now;
    sampled++;
    if (now < 0 || sampled < SAMPLES) {
      return false;
    }
    long then = samples[sampled % SAMPLES]; // the oldest of the last SAMPLES readings
    return now - then <= SETTLED_MILLIS;
  }

  /** Holds C2 now, unless held or released already; stops the readings. */
  synchronized void hold() {
    if (active() && !held && !released) {
      held = directives.add(DIRECTIVE);
      stopPolling();
    }
  }

  /** Lets C2 compile again; a later {@link #hold()} does nothing. */
  synchronized void release() {
    released = true;
    stopPolling();
    if (held) {
      held = false;
      directives.remove();
    }
  }

  private void stopPolling() {
    if (poller != null) {
      poller.shutdownNow();
      poller = null;
    }
  }

  /** Whether C2 is held now. */
  synchronized boolean held() {
    return held;
  }

  /** The platform's DiagnosticCommand MBean: jcmd's Compiler.directives_add and _remove. */
  static final class MBeanDirectives implements Directives {
    /**
     * Starts the platform MBean server and runs the path {@link #add} takes once (a temporary
     * file, a diagnostic command): the first use loads and compiles some 600 methods (JMX,
     * logging, reflection, SecureRandom), a second of C1 and C2 work that would otherwise land in
     * the window when the hold engages.
     */
    @Override
    public void prepare() {
      try {
        Path file = Files.createTempFile("tokenmeter-jit", ".json");
        Files.deleteIfExists(file);
        print();
      } catch (IOException | JMException | RuntimeException e) {
        // add() will meet the same failure and leave the compiler alone
      }
    }

    @Override
    public boolean add(String json) {
      Path file = null;
      try {
        file = Files.createTempFile("tokenmeter-jit", ".json");
        Files.writeString(file, json);
        Object out = invoke("compilerDirectivesAdd", new Object[] {new String[] {file.toString()}},
            new String[] {String[].class.getName()});
        return out instanceof String s && s.contains("1 compiler directives added");
      } catch (IOException | JMException | RuntimeException e) {
        return false;
      } finally {
        if (file != null) {
          try {
            Files.deleteIfExists(file);
          } catch (IOException ignored) {
            // a temporary file of 50 bytes left behind
          }
        }
      }
    }

    @Override
    public void remove() {
      try {
        invoke("compilerDirectivesRemove", new Object[0], new String[0]);
      } catch (JMException | RuntimeException e) {
        // the directive stays: C2 stays held for the rest of the process, which costs CPU, not data
      }
    }

    /** The directives as the JVM prints them (jcmd Compiler.directives_print), for tests. */
    static String print() throws JMException {
      return (String) invoke("compilerDirectivesPrint", new Object[0], new String[0]);
    }

    private static Object invoke(String operation, Object[] args, String[] signature) throws JMException {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      return server.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), operation, args, signature);
    }
  }
}
