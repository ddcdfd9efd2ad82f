package dev.tokenmeter.testkit;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.nio.NioIoHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * How often an event loop goes back to its sockets while a burst of queued tasks runs: the
 * property that keeps a burst of writes or timers from holding reads (and their timestamps) back.
 */
public final class LoopTurns {
  private LoopTurns() {}

  /**
   * Builds a group with {@code groupOf} over an I/O handler that counts its turns, queues {@code
   * tasks} tasks of {@code spinNanos} busy time each on its first loop at once, and returns how
   * many I/O turns the loop took between the first and the last of them.
   */
  public static int duringTaskBurst(Function<IoHandlerFactory, EventLoopGroup> groupOf, int tasks, long spinNanos)
      throws Exception {
    AtomicInteger turns = new AtomicInteger();
    IoHandlerFactory nio = NioIoHandler.newFactory();
    EventLoopGroup group = groupOf.apply(executor -> counting(nio.newHandler(executor), turns));
    try {
      EventLoop loop = group.next();
      CompletableFuture<Integer> seen = new CompletableFuture<>();
      loop.execute(
          () -> {
            int before = turns.get();
            for (int i = 0; i < tasks; i++) {
              loop.execute(() -> spin(spinNanos));
            }
            loop.execute(() -> seen.complete(turns.get() - before));
          });
      return seen.get(30, TimeUnit.SECONDS);
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }

  private static void spin(long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  /** {@code delegate} with every call to {@code run}, one loop turn, counted. */
  private static IoHandler counting(IoHandler delegate, AtomicInteger turns) {
    return (IoHandler)
        Proxy.newProxyInstance(
            IoHandler.class.getClassLoader(),
            new Class<?>[] {IoHandler.class},
            (proxy, method, args) -> {
              if (method.getName().equals("run")) {
                turns.incrementAndGet();
              }
              try {
                return method.invoke(delegate, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
