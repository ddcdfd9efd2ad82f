package dev.tokenmeter.core.analysis;

/**
 * CPU the client used during one stage, measured by the caller (for example with {@code
 * com.sun.management.OperatingSystemMXBean#getProcessCpuTime} and {@code
 * ThreadMXBean#getThreadCpuTime} of the event-loop thread, read at stage start and end).
 *
 * @param processCpuNanos CPU time of the whole process during the stage (user + system), -1 when
 *     unknown
 * @param loopThreadCpuNanos CPU time of the busiest event-loop thread during the stage, -1 when
 *     unknown
 * @param availableProcessors cores the JVM may use ({@code Runtime.availableProcessors()}), 0 when
 *     unknown
 * @param eventLoops the client's event loops (threads reading the sockets), at least 1
 */
public record ClientCpu(long processCpuNanos, long loopThreadCpuNanos, int availableProcessors, int eventLoops) {

  /** Nothing measured. */
  public static final ClientCpu UNKNOWN = new ClientCpu(-1, -1, 0);

  public ClientCpu {
    if (availableProcessors < 0) {
      throw new IllegalArgumentException("available processors must not be negative");
    }
    if (eventLoops < 1) {
      throw new IllegalArgumentException("a client has at least one event loop, got " + eventLoops);
    }
  }

  /** CPU of a client with one event loop. */
  public ClientCpu(long processCpuNanos, long loopThreadCpuNanos, int availableProcessors) {
    this(processCpuNanos, loopThreadCpuNanos, availableProcessors, 1);
  }
}
