package dev.tokenmeter.testkit;

import dev.tokenmeter.core.engine.Loop;
import dev.tokenmeter.core.time.Ticker;
import java.util.PriorityQueue;

/**
 * A {@link Loop} in virtual time: tasks run in (due time, submission order) as {@link #runUntil}
 * advances its clock. Single-threaded: everything runs on the caller's thread. It is also the
 * ticker of the code under test, so "now" is whatever task is running.
 */
public final class VirtualLoop implements Loop, Ticker {
  private record Task(long dueNanos, long seq, Runnable run, boolean[] cancelled) {}

  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>((a, b) -> a.dueNanos != b.dueNanos ? Long.compare(a.dueNanos, b.dueNanos) : Long.compare(a.seq, b.seq));
  private long nowNanos;
  private long seq;

  public VirtualLoop(long startNanos) {
    this.nowNanos = startNanos;
  }

  @Override
  public long nanos() {
    return nowNanos;
  }

  @Override
  public void execute(Runnable task) {
    schedule(task, 0);
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    boolean[] cancelled = {false};
    tasks.add(new Task(nowNanos + Math.max(0, delayNanos), seq++, task, cancelled));
    return () -> cancelled[0] = true;
  }

  @Override
  public boolean inLoop() {
    return true;
  }

  /** Runs every task due up to {@code endNanos} (including ones they schedule), then sets the clock there. */
  public void runUntil(long endNanos) {
    while (!tasks.isEmpty() && tasks.peek().dueNanos <= endNanos) {
      Task t = tasks.poll();
      nowNanos = Math.max(nowNanos, t.dueNanos);
      if (!t.cancelled[0]) {
        t.run.run();
      }
    }
    nowNanos = Math.max(nowNanos, endNanos);
  }

  /** Runs until {@code done} is true or virtual time passes {@code limitNanos}. */
  public void runUntil(java.util.function.BooleanSupplier done, long limitNanos) {
    while (!done.getAsBoolean() && !tasks.isEmpty() && tasks.peek().dueNanos <= limitNanos) {
      Task t = tasks.poll();
      nowNanos = Math.max(nowNanos, t.dueNanos);
      if (!t.cancelled[0]) {
        t.run.run();
      }
    }
  }
}
