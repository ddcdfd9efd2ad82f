package dev.tokenmeter.run;

import dev.tokenmeter.client.SpreadEndpoint;
import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.loadgen.RequestSink;
import dev.tokenmeter.core.loadgen.StageRunner;
import dev.tokenmeter.core.loadgen.Timeouts;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.report.RequestsJsonlWriter;
import dev.tokenmeter.run.RunFailedException;
import dev.tokenmeter.run.SloRun;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * One {@link BenchRun.Lane} while the run goes: its endpoint (its own event loop), its {@code
 * requests.jsonl}, its results so far and the stage running on it. A plain bench run has one lane;
 * {@code --variant} one per variant, all started for each stage together. Used from the run's
 * thread, except {@link #interrupt}, which any thread may call (Ctrl-C).
 */
final class LaneRun implements AutoCloseable {
  private final BenchRun.Lane lane;
  private final SpreadEndpoint endpoint;
  private final RequestsJsonlWriter jsonl;
  private final long[] loopThreadIds;
  private final List<StageResult> results = new ArrayList<>();
  private volatile StageRunner current;
  private volatile TargetWatch watch;
  private CompletableFuture<Long> done;
  private long[] loopCpu0;

  private LaneRun(BenchRun.Lane lane, SpreadEndpoint endpoint, RequestsJsonlWriter jsonl) {
    this.lane = lane;
    this.endpoint = endpoint;
    this.jsonl = jsonl;
    this.loopThreadIds = loopThreadIds(endpoint);
  }

  /**
   * Creates the lane's folder, opens its endpoint over {@code eventLoops} event loops and its
   * {@code requests.jsonl}.
   */
  static LaneRun open(BenchRun.Lane lane, Ticker ticker, long runStartNanos, boolean rawTimes, int eventLoops) {
    try {
      Files.createDirectories(lane.outDir());
    } catch (IOException e) {
      throw new RunFailedException("cannot create the results folder " + lane.outDir() + ": " + e.getMessage()
          + ". Choose another with --out DIR.");
    }
    SpreadEndpoint endpoint = SpreadEndpoint.open(lane.endpoint(), ticker, eventLoops);
    try {
      return new LaneRun(lane, endpoint, BenchRun.openJsonl(lane.outDir().resolve("requests.jsonl"), runStartNanos, rawTimes));
    } catch (RuntimeException e) {
      endpoint.close();
      throw e;
    }
  }

  BenchRun.Lane lane() {
    return lane;
  }

  /** The stages done so far, in run order. */
  List<StageResult> results() {
    return results;
  }

  /** Closes idle connections, so the next stage pays its connects as a new client would. */
  void closeIdleConnections() {
    endpoint.closeIdleConnections().join();
  }

  /**
   * Starts {@code plan} (this lane's share of the stage) on the lane's loop; returns its runner.
   * {@code export} (null for none) also gets the stage's requests and its in-flight count; {@code
   * failFast} is {@link TargetWatch}'s count of first failures alike that stops the stage (0: off).
   */
  StageRunner start(StagePlan plan, Timeouts timeouts, Ticker ticker, SloRun slo, OutputTokenCounter counter,
      Executor counting, LiveExport export, int failFast) {
    return start(plan, lane.requests().apply(plan), timeouts, ticker, slo, counter, counting, export, failFast);
  }

  /** {@link #start} with the stage's requests built already ({@code source}). */
  StageRunner start(StagePlan plan, dev.tokenmeter.core.loadgen.RequestSource source, Timeouts timeouts, Ticker ticker,
      SloRun slo, OutputTokenCounter counter, Executor counting, LiveExport export, int failFast) {
    RequestSink sink = export == null ? slo.sink(jsonl) : export.sink(lane, plan, slo.sink(jsonl));
    TargetWatch watch = new TargetWatch(sink, failFast, v -> interrupt(v.reason()));
    StageRunner runner = new StageRunner(endpoint, plan, source, timeouts, ticker, watch, counter, counting);
    if (export != null) {
      export.stageStarted(lane, plan, runner);
    }
    this.watch = watch;
    current = runner;
    loopCpu0 = threadCpuNanos(loopThreadIds);
    done = runner.start();
    return runner;
  }

  /**
   * Runs {@code w} on the lane's endpoint and waits for it: its requests go to no file and no
   * stage, only into the returned counts. A Ctrl-C meanwhile ({@link #interrupt}) cancels them.
   */
  Warmup.Result warmUp(Warmup w, long seed, Timeouts timeouts, Ticker ticker, OutputTokenCounter counter,
      Executor counting) {
    long[] ended = new long[2]; // requests, completed; written on the loop, read after the stage's future
    RequestSink sink = (t, m) -> {
      ended[0]++;
      if (t.outcome().succeeded()) {
        ended[1]++;
      }
    };
    StageRunner runner = new StageRunner(endpoint, w.plan(seed), w.requests().get(), timeouts, ticker, sink, counter,
        counting);
    long start = ticker.nanos();
    current = runner;
    done = runner.start();
    long end = await();
    current = null;
    return new Warmup.Result(w, ended[0], ended[1], end - start);
  }

  /**
   * Waits for the stage started last; when the waiting thread is interrupted, stops the stage (its
   * requests end as cancelled) and waits for that.
   */
  long await() {
    try {
      return done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      current.interrupt("interrupted");
      return done.join();
    } catch (ExecutionException e) {
      throw new IllegalStateException("stage failed", e.getCause());
    }
  }

  /**
   * The result of the stage that ended at {@code endNanos}, its goodput filled in, added to {@link
   * #results()}. The process CPU (from {@code cpu0Nanos} to {@code cpuNanos}) is the whole client's,
   * every lane's together; the loop CPU is this lane's busiest event loop's.
   */
  StageResult finish(long endNanos, long cpu0Nanos, long cpuNanos, SloRun slo) {
    long[] loopCpu = threadCpuNanos(loopThreadIds);
    long busiest = -1;
    for (int i = 0; i < loopCpu.length; i++) {
      if (loopCpu0[i] < 0 || loopCpu[i] < 0) {
        busiest = -1;
        break;
      }
      busiest = Math.max(busiest, loopCpu[i] - loopCpu0[i]);
    }
    ClientCpu clientCpu =
        new ClientCpu(
            cpu0Nanos < 0 || cpuNanos < 0 ? -1 : cpuNanos - cpu0Nanos,
            busiest,
            Runtime.getRuntime().availableProcessors(),
            loopThreadIds.length);
    StageResult r = slo.withGoodput(current.recorder().finish(endNanos, clientCpu));
    results.add(r);
    return r;
  }

  /** Why {@link TargetWatch} stopped the stage started last, or null when it did not. */
  TargetWatch.Verdict stopVerdict() {
    TargetWatch w = watch;
    return w == null ? null : w.verdict();
  }

  /** The first failure (not a cancellation) of the stage started last, or null. */
  dev.tokenmeter.core.request.Outcome firstFailure() {
    TargetWatch w = watch;
    return w == null ? null : w.firstFailure();
  }

  /** The running stage's runner, or null before the first. */
  StageRunner current() {
    return current;
  }

  /** Stops the running stage now, if any. Any thread. */
  void interrupt(String reason) {
    StageRunner r = current;
    if (r != null) {
      r.interrupt(reason);
    }
  }

  @Override
  public void close() {
    try {
      jsonl.close();
    } finally {
      endpoint.close(); // after the writer, as the single run's try-with-resources did
    }
  }

  private static long[] loopThreadIds(SpreadEndpoint endpoint) {
    List<dev.tokenmeter.core.loadgen.Loop> loops = endpoint.loops();
    long[] ids = new long[loops.size()];
    for (int i = 0; i < ids.length; i++) {
      CompletableFuture<Long> id = new CompletableFuture<>();
      loops.get(i).execute(() -> id.complete(Thread.currentThread().threadId()));
      ids[i] = id.join();
    }
    return ids;
  }

  static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** Each thread's CPU time so far, -1 where unknown. */
  private static long[] threadCpuNanos(long[] threadIds) {
    ThreadMXBean t = ManagementFactory.getThreadMXBean();
    long[] cpu = new long[threadIds.length];
    for (int i = 0; i < cpu.length; i++) {
      cpu[i] = t.isThreadCpuTimeSupported() ? t.getThreadCpuTime(threadIds[i]) : -1;
    }
    return cpu;
  }
}
