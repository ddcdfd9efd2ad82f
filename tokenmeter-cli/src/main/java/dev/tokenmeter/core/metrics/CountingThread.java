package dev.tokenmeter.core.metrics;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One daemon thread that runs output token counts handed over by an event loop, so a tokenizer's
 * cost (about 42 µs per 256-token answer with o200k_base, 237 µs with Llama 3) never delays the
 * loop's reads. Tasks run in submission order.
 *
 * <p>Bounded: at most {@link #CAPACITY} tasks wait. When the queue is full (the tokenizer cannot
 * keep up with the request rate, about 4,000 answers/s for Llama 3 on one core) or the thread has
 * been closed, {@link #execute} runs the task on the caller's thread: back-pressure on the loop
 * instead of memory growing without limit or a count lost. {@link #inlineRuns()} says how often.
 *
 * <p>Thread-safe. {@link #close} lets queued tasks finish; call it once nothing submits any more
 * (after the last stage ended).
 */
public final class CountingThread implements Executor, AutoCloseable {
  /** Queued tasks at most: 8,192 answers of 1-8 KB hold 8-64 MB of text at worst. */
  public static final int CAPACITY = 8192;

  private final ArrayBlockingQueue<Runnable> queue;
  private final Thread thread;
  private volatile boolean closed;
  private volatile long inlineRuns;

  /** Starts the thread, named {@code name}. */
  public CountingThread(String name) {
    this(name, CAPACITY);
  }

  CountingThread(String name, int capacity) {
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::drain, name);
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void execute(Runnable task) {
    if (closed || !queue.offer(task)) {
      synchronized (this) {
        inlineRuns++;
      }
      task.run();
    }
  }

  /** Tasks run on the caller's thread because the queue was full or the thread closed. */
  public long inlineRuns() {
    return inlineRuns;
  }

  private void drain() {
    try {
      while (!closed || !queue.isEmpty()) {
        Runnable r = queue.poll(100, TimeUnit.MILLISECONDS);
        if (r != null) {
          try {
            r.run();
          } catch (RuntimeException e) {
            // a task's own failure must not stop the counts queued behind it
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops taking tasks (later ones run on the caller) and waits up to 10 s for queued ones. */
  @Override
  public void close() {
    closed = true;
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
