package dev.tokenmeter.client;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;

/**
 * Groups the read stamps of the client's event loop by loop turn and reports each turn as a {@link
 * ReadBatchEvent}: the measurement behind "how long after the loop woke up was this read taken,
 * and how many reads came before it". One per event loop; loop thread only.
 *
 * <pre>
 * design notes
 * - Netty's IoHandler.run() waits in epoll_wait and then handles every ready channel, so the reads
 *   of one wake-up are exactly those stamped inside one run(); wrapping the handler marks the end
 *   of the batch without touching Netty's loop.
 * - The kernel's own receive time would be better still, but Netty 4.2's epoll transport offers no
 *   SO_TIMESTAMPING option (EpollChannelOption) and reads TCP with read(2), not recvmsg(2), so the
 *   stamp taken at channelRead is the earliest the client can have.
 * - With no recording running the per-turn cost is one boolean check.
 * </pre>
 */
final class ReadBatchProbe {
  private int reads;
  private long firstNanos;
  private long lastNanos;

  /** Notes one socket read stamped at {@code nanos}. */
  void read(long nanos) {
    if (reads++ == 0) {
      firstNanos = nanos;
    }
    lastNanos = nanos;
  }

  /** Ends the loop turn: reports it if it read anything and a recording wants it. */
  void endTurn() {
    if (reads == 0) {
      return;
    }
    ReadBatchEvent e = new ReadBatchEvent();
    if (e.shouldCommit()) {
      e.reads = reads;
      e.spanNanos = lastNanos - firstNanos;
      e.commit();
    }
    reads = 0;
  }

  /**
   * {@code factory}'s handlers, each holding {@code held}'s events while it reads the sockets of a
   * wake-up and handing them on after it; then it ends a turn of {@code probe}.
   */
  static IoHandlerFactory wrap(IoHandlerFactory factory, ReadBatchProbe probe, HeldReads held) {
    return executor -> new Handler(factory.newHandler(executor), probe, held);
  }

  private record Handler(IoHandler delegate, ReadBatchProbe probe, HeldReads held) implements IoHandler {
    @Override
    public void initialize() {
      delegate.initialize();
    }

    @Override
    public int run(IoHandlerContext context) {
      held.beginTurn();
      try {
        return delegate.run(context);
      } finally {
        probe.endTurn(); // the turn's stamps, all taken before any of its reads was processed
        held.endTurn();
      }
    }

    @Override
    public void prepareToDestroy() {
      delegate.prepareToDestroy();
    }

    @Override
    public void destroy() {
      delegate.destroy();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
      return delegate.register(handle);
    }

    @Override
    public void wakeup() {
      delegate.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
      return delegate.isCompatible(handleType);
    }
  }
}
