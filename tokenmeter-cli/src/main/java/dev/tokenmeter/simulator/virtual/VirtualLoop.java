package dev.tokenmeter.simulator.virtual;

import dev.tokenmeter.core.loadgen.Loop;
import dev.tokenmeter.core.time.Ticker;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * A {@link Loop} in virtual time, and its clock: a discrete-event scheduler. Tasks run in order of
 * (due time, submission order) as {@link #runUntil} advances the clock to each task's due time, so
 * "now" is always the due time of the task running. Nothing waits: an hour of virtual time costs
 * only the tasks in it.
 *
 * <pre>{@code
 * VirtualLoop loop = new VirtualLoop(0);
 * StageRunner runner = new StageRunner(endpoint, plan, source, timeouts, loop, sink, null);
 * CompletableFuture<Long> done = runner.start();
 * loop.runUntil(done::isDone);
 * }</pre>
 *
 * <p>Not thread-safe, unlike a real loop: every method must be called on the thread that drives
 * {@link #runUntil} (the runner's {@code interrupt} from another thread is not supported). The
 * tie-break by submission order makes a run reproducible: the same calls give the same order.
 */
public final class VirtualLoop implements Loop, Ticker {

  /** A task and its place in the order; cancelling it marks it, the queue drops it when due. */
  private static final class Task implements Cancellable {
    final long dueNanos;
    final long seq;
    final Runnable run;
    boolean cancelled;

    Task(long dueNanos, long seq, Runnable run) {
      this.dueNanos = dueNanos;
      this.seq = seq;
      this.run = run;
    }

    @Override
    public void cancel() {
      cancelled = true;
    }
  }

  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>(
          (a, b) ->
              a.dueNanos != b.dueNanos
                  ? Long.compare(a.dueNanos, b.dueNanos)
                  : Long.compare(a.seq, b.seq));
  private long nowNanos;
  private long seq;
  private long executed;

  /** A loop whose clock starts at {@code startNanos}. */
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

  /** Runs {@code task} at now + {@code delayNanos} (not before now). */
  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    Task t = new Task(nowNanos + Math.max(0, delayNanos), seq++, task);
    tasks.add(t);
    return t;
  }

  @Override
  public boolean inLoop() {
    return true;
  }

  /** Tasks run so far (cancelled ones not counted). */
  public long executed() {
    return executed;
  }

  /** Tasks queued, cancelled ones included until their due time. */
  public int pending() {
    return tasks.size();
  }

  /**
   * Runs tasks in order until {@code done} is true or no task is left.
   *
   * @return true when {@code done} became true
   */
  public boolean runUntil(BooleanSupplier done) {
    while (!done.getAsBoolean()) {
      Task t = tasks.poll();
      if (t == null) {
        return false;
      }
      run(t);
    }
    return true;
  }

  /** Runs every task due at or before {@code endNanos}, then sets the clock there. */
  public void runUntil(long endNanos) {
    while (!tasks.isEmpty() && tasks.peek().dueNanos <= endNanos) {
      run(tasks.poll());
    }
    nowNanos = Math.max(nowNanos, endNanos);
  }

  private void run(Task t) {
    nowNanos = Math.max(nowNanos, t.dueNanos);
    if (!t.cancelled) {
      executed++;
      t.run.run();
    }
  }
}
