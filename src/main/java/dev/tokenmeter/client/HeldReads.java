package dev.tokenmeter.client;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import java.util.Arrays;

/**
 * Holds back the inbound events of the client's connections while its event loop reads the
 * sockets that one {@code epoll_wait} reported ready, and hands them on, in arrival order, once
 * every one of those sockets has been read and its read stamped. One per event loop; loop thread
 * only.
 *
 * <pre>
 * design notes
 * - Why: 1,000 in-step streams make the loop read 1,000 sockets in one turn. Netty handles each
 *   socket's read whole (HTTP decoding, SSE framing, chunk parsing, the request's record) before it
 *   reads the next, so the k-th read was stamped after the processing of the k - 1 reads before it:
 *   measured on a 16-core machine with the client alone on 4 cores (docs/PERFORMANCE.md §8), a
 *   delivery p99 of 3.3-3.9 ms at 1,000 streams against 0.12 ms at 100, with the client's threads
 *   almost never waiting for a CPU. Holding the processing back until every ready socket is read
 *   leaves only the reads themselves between a socket's readiness and its stamp.
 * - What is held: channelRead, channelReadComplete, channelInactive and exceptionCaught, the events
 *   whose order matters to the exchange (data, then end of stream or error); the rest passes
 *   through. Outside the read phase (tasks, timers, and the handing-on itself) nothing is held, so
 *   an event caused by a held one (a close on a protocol error) follows it at once.
 * - Storage: parallel arrays that grow and are reused, so holding allocates nothing per read.
 * </pre>
 */
final class HeldReads {
  /** The kinds of event held. */
  static final byte READ = 0;
  static final byte READ_COMPLETE = 1;
  static final byte INACTIVE = 2;
  static final byte EXCEPTION = 3;

  /** Where a held event goes: the stamp handler of the connection that read it. */
  interface Target {
    /** Hands on a read stamped at {@code nanos}: the connection's read time, then the message. */
    void deliverRead(ChannelHandlerContext ctx, Object msg, long nanos);
  }

  private boolean reading;
  private Target[] targets = new Target[64];
  private ChannelHandlerContext[] contexts = new ChannelHandlerContext[64];
  private Object[] messages = new Object[64];
  private long[] stamps = new long[64];
  private byte[] kinds = new byte[64];
  private int size;

  /** Whether the loop is reading its sockets now: events are to be held. */
  boolean holding() {
    return reading;
  }

  /** The loop starts reading the sockets of one wake-up. */
  void beginTurn() {
    reading = true;
  }

  /** Holds one event; {@code message} is the read's message or the exception, else null. */
  void hold(Target target, ChannelHandlerContext ctx, byte kind, Object message, long nanos) {
    if (size == kinds.length) {
      int n = size * 2;
      targets = Arrays.copyOf(targets, n);
      contexts = Arrays.copyOf(contexts, n);
      messages = Arrays.copyOf(messages, n);
      stamps = Arrays.copyOf(stamps, n);
      kinds = Arrays.copyOf(kinds, n);
    }
    targets[size] = target;
    contexts[size] = ctx;
    messages[size] = message;
    stamps[size] = nanos;
    kinds[size] = kind;
    size++;
  }

  /** The read phase is over: hands on every held event in the order it came. */
  void endTurn() {
    reading = false;
    int i = 0;
    try {
      for (; i < size; i++) {
        Target target = targets[i];
        ChannelHandlerContext ctx = contexts[i];
        Object message = messages[i];
        targets[i] = null;
        contexts[i] = null;
        messages[i] = null;
        switch (kinds[i]) {
          case READ -> target.deliverRead(ctx, message, stamps[i]);
          case READ_COMPLETE -> ctx.fireChannelReadComplete();
          case INACTIVE -> ctx.fireChannelInactive();
          default -> ctx.fireExceptionCaught((Throwable) message);
        }
      }
    } finally {
      // Only if a handler threw past Netty's own catch: release what was not handed on.
      for (int j = i + 1; j < size; j++) {
        if (kinds[j] == READ) {
          ReferenceCountUtil.release(messages[j]);
        }
        targets[j] = null;
        contexts[j] = null;
        messages[j] = null;
      }
      size = 0;
    }
  }
}
