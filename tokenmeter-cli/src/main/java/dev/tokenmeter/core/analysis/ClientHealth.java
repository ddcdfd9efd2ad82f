package dev.tokenmeter.core.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.AbstractHistogram;

/**
 * Whether the client, not the server, limited a stage's measurement: the client watching itself.
 *
 * <p>Inputs: send lag and loop lag recorded during the measurement window (the warm-up is left out,
 * it holds the JIT's compile pauses), and CPU over the whole stage (the only span the caller can
 * sample cheaply). Thresholds, each a {@code bottleneck} reason when crossed:
 *
 * <ul>
 *   <li>loop lag p99 &gt; {@value #LOOP_LAG_P99_LIMIT_MS} ms: every timestamp is taken on the event
 *       loop, so a loop this late shifts TTFT and ITL by up to as much; at typical ITLs of 10–30
 *       ms that is a 15–50% error;
 *   <li>send lag p99 &gt; {@value #SEND_LAG_P99_LIMIT_MS} ms, open loop only (a closed loop sends
 *       when the last request ended, there is no schedule to fall behind): at 100 requests/s a
 *       10 ms lag is a whole inter-arrival gap, the offered load is no longer the one asked for;
 *   <li>event-loop thread CPU &gt; {@value #LOOP_THREAD_CPU_LIMIT} of one core (the busiest loop's,
 *       when the client runs several): the loop has no idle time left, reads queue up and their
 *       timestamps come late;
 *   <li>process CPU &gt; {@value #PROCESS_CPU_LIMIT} of all cores: the machine itself is saturated
 *       (on the 2-core machines the project is tested on, the server may be sharing it).
 * </ul>
 *
 * @param sendLagMillis how late requests began versus their schedule, ms
 * @param loopLagMillis how late the event loops ran due tasks (every loop's probes), ms
 * @param cpuSeconds process CPU seconds during the stage, NaN when unknown
 * @param cpuFractionOfOneCore process CPU time / stage length (2.0 = two cores busy), NaN unknown
 * @param cpuFractionOfAllCores process CPU time / (stage length × cores), NaN unknown
 * @param loopThreadCpuFraction event-loop thread CPU time / stage length (the busiest loop's),
 *     NaN unknown
 * @param availableProcessors cores available to the JVM, 0 unknown
 * @param eventLoops the client's event loops (bench {@code --event-loops})
 * @param outputTokensPerCpuSecond output tokens received in the stage per process CPU-second, NaN
 *     unknown
 * @param bottleneck true when any threshold was crossed
 * @param reasons one sentence per crossed threshold, with the numbers
 */
public record ClientHealth(
    Distribution sendLagMillis,
    Distribution loopLagMillis,
    double cpuSeconds,
    double cpuFractionOfOneCore,
    double cpuFractionOfAllCores,
    double loopThreadCpuFraction,
    int availableProcessors,
    int eventLoops,
    double outputTokensPerCpuSecond,
    boolean bottleneck,
    List<String> reasons) {

  /** Loop lag p99 above which the client is the bottleneck, ms. */
  public static final double LOOP_LAG_P99_LIMIT_MS = 5.0;

  /** Send lag p99 above which an open-loop client is the bottleneck, ms. */
  public static final double SEND_LAG_P99_LIMIT_MS = 10.0;

  /** Event-loop thread CPU, as a fraction of one core, above which the loop is saturated. */
  public static final double LOOP_THREAD_CPU_LIMIT = 0.90;

  /** Process CPU, as a fraction of all cores, above which the machine is saturated. */
  public static final double PROCESS_CPU_LIMIT = 0.90;

  /**
   * What a client with one CPU is told (console and report), not a bottleneck reason: its JIT
   * compiler threads, woken by the event loop, run in its place for milliseconds, the optimising
   * one held out of a window once it settles after a warm-up; its collector's pauses stop the loop too
   * (docs/METRICS.md, "Client health").
   */
  public static final String ONE_CPU_NOTE = "the client had one CPU: its garbage collector and JIT compiler"
      + " ran on the event loop's CPU (the optimising compiler is held out of the window once it settles"
      + " after a warm-up) and can hold reads back by a few ms, so TTFT and ITL p99 may read up to that"
      + " much high";

  public ClientHealth {
    reasons = List.copyOf(reasons);
  }

  /**
   * Assesses a stage.
   *
   * @param sendLagNanos histogram of send lag, nanoseconds
   * @param loopLagNanos histogram of loop lag, nanoseconds
   * @param cpu CPU used during the stage
   * @param stageLengthNanos stage length the CPU was measured over
   * @param stageOutputTokens output tokens received during the stage, every phase
   * @param openLoop whether the stage ran an open-loop model (send lag then counts)
   */
  public static ClientHealth assess(
      AbstractHistogram sendLagNanos,
      AbstractHistogram loopLagNanos,
      ClientCpu cpu,
      long stageLengthNanos,
      long stageOutputTokens,
      boolean openLoop) {
    Distribution send = Distribution.of(sendLagNanos, 1e6);
    Distribution loop = Distribution.of(loopLagNanos, 1e6);
    double cpuSeconds = cpu.processCpuNanos() < 0 ? Double.NaN : cpu.processCpuNanos() / 1e9;
    double oneCore =
        cpu.processCpuNanos() < 0 || stageLengthNanos <= 0
            ? Double.NaN
            : (double) cpu.processCpuNanos() / stageLengthNanos;
    double allCores = cpu.availableProcessors() == 0 ? Double.NaN : oneCore / cpu.availableProcessors();
    double loopCpu =
        cpu.loopThreadCpuNanos() < 0 || stageLengthNanos <= 0
            ? Double.NaN
            : (double) cpu.loopThreadCpuNanos() / stageLengthNanos;
    double perCpuSecond = cpuSeconds > 0 ? stageOutputTokens / cpuSeconds : Double.NaN;

    List<String> reasons = new ArrayList<>();
    if (loop.count() > 0 && loop.p99() > LOOP_LAG_P99_LIMIT_MS) {
      reasons.add(
          fmt("event-loop lag p99 %.2f ms exceeds %.0f ms", loop.p99(), LOOP_LAG_P99_LIMIT_MS));
    }
    if (openLoop && send.count() > 0 && send.p99() > SEND_LAG_P99_LIMIT_MS) {
      reasons.add(fmt("send lag p99 %.2f ms exceeds %.0f ms", send.p99(), SEND_LAG_P99_LIMIT_MS));
    }
    if (loopCpu > LOOP_THREAD_CPU_LIMIT) {
      reasons.add(
          fmt(
              "%s used %.0f%% of a core (limit %.0f%%)",
              cpu.eventLoops() == 1 ? "event-loop thread" : "busiest of " + cpu.eventLoops() + " event-loop threads",
              loopCpu * 100, LOOP_THREAD_CPU_LIMIT * 100));
    }
    if (allCores > PROCESS_CPU_LIMIT) {
      reasons.add(
          fmt(
              "client process used %.0f%% of all %d cores (limit %.0f%%)",
              allCores * 100, cpu.availableProcessors(), PROCESS_CPU_LIMIT * 100));
    }
    return new ClientHealth(
        send,
        loop,
        cpuSeconds,
        oneCore,
        allCores,
        loopCpu,
        cpu.availableProcessors(),
        cpu.eventLoops(),
        perCpuSecond,
        !reasons.isEmpty(),
        reasons);
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
