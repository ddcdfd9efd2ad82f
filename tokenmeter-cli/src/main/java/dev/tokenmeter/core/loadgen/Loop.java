package dev.tokenmeter.core.loadgen;

/**
 * A single-threaded event loop the engine schedules on (implemented over Netty's event loop).
 * Everything submitted runs on the same thread, in order.
 */
public interface Loop {

  /** Runs {@code task} on the loop soon. Safe to call from any thread. */
  void execute(Runnable task);

  /**
   * Runs {@code task} on the loop after {@code delayNanos} (0 or negative: as soon as possible).
   * Safe to call from any thread.
   */
  Cancellable schedule(Runnable task, long delayNanos);

  /** True when the calling thread is this loop's thread. */
  boolean inLoop();

  /** A scheduled task that can be called off. */
  interface Cancellable {
    void cancel();
  }
}
