package dev.tokenmeter.client;

import dev.tokenmeter.core.loadgen.Loop;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SingleThreadIoEventLoop;
import io.netty.util.concurrent.RejectedExecutionHandlers;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** {@link Loop} over one Netty event loop (whose timers have nanosecond resolution on epoll). */
final class NettyLoop implements Loop {
  /**
   * How long the loop runs queued tasks (request writes, timers) before it polls the sockets again:
   * 1 ms (the least Netty's constructor takes: it counts in milliseconds), checked every 64 tasks.
   * Netty's default is 1 s (and at least 100 ms through its system property {@code
   * io.netty.eventLoop.maxTaskProcessingQuantumMs}), so a burst of 1,000 in-step request writes
   * held every token that arrived meanwhile unread, and unstamped, until the burst ended.
   */
  static final long TASK_QUANTUM_MILLIS = 1;

  private final EventLoop loop;

  NettyLoop(EventLoop loop) {
    this.loop = loop;
  }

  /** One event loop over {@code io}, its thread from {@code threads}, tasks bounded by {@link #TASK_QUANTUM_MILLIS}. */
  static MultiThreadIoEventLoopGroup group(IoHandlerFactory io, ThreadFactory threads) {
    return new MultiThreadIoEventLoopGroup(1, threads, io) {
      @Override
      protected IoEventLoop newChild(Executor executor, IoHandlerFactory factory, Object... args) {
        return new SingleThreadIoEventLoop(
            this, executor, factory, Integer.MAX_VALUE, RejectedExecutionHandlers.reject(), TASK_QUANTUM_MILLIS);
      }
    };
  }

  @Override
  public void execute(Runnable task) {
    loop.execute(task);
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    if (delayNanos <= 0) {
      loop.execute(task);
      return () -> {};
    }
    var f = loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    return () -> f.cancel(/* mayInterruptIfRunning= */ false);
  }

  @Override
  public boolean inLoop() {
    return loop.inEventLoop();
  }
}
