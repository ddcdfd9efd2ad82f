package dev.tokenmeter.client;

import dev.tokenmeter.core.engine.Loop;
import io.netty.channel.EventLoop;
import java.util.concurrent.TimeUnit;

/** {@link Loop} over one Netty event loop (whose timers have nanosecond resolution on epoll). */
final class NettyLoop implements Loop {
  private final EventLoop loop;

  NettyLoop(EventLoop loop) {
    this.loop = loop;
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
