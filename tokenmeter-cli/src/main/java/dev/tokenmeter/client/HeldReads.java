package dev.tokenmeter.client;

import io.netty.buffer.ByteBuf;
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
 *   measured on a 16-core machine with the client alone on 4 cores
 *   (docs/PERFORMANCE.md, "Event loops and held reads at 1,000 streams"), a
 *   delivery p99 of 3.3-3.9 ms at 1,000 streams against 0.12 ms at 100, with the client's threads
 *   almost never waiting for a CPU. Holding the processing back until every ready socket is read
 *   leaves only the reads themselves between a socket's readiness and its stamp.
 * - What is held: channelRead, channelReadComplete, channelInactive and exceptionCaught, the events
 *   whose order matters to the exchange (data, then end of stream or error); the rest passes
 *   through. Outside the read phase (tasks, timers, and the handing-on itself) nothing is held, so
 *   an event caused by a held one (a close on a protocol error) follows it at once.
 * - Storage: parallel arrays that grow and are reused, so holding allocates nothing per read.
 * - Bounded: at most MAX_HELD_BYTES of read data are held in one turn. Past that the held events
 *   are handed on at once and the rest of the turn passes through, as before holding existed. Paced
 *   streams hold a few hundred bytes per socket per turn; a server faster than the client (zero
 *   delay, long answers) leaves up to 16 reads of 64 KiB per socket ready at every wake-up, and
 *   holding them all exhausted Netty's direct memory at 1,000 streams: "failed to allocate 65536
 *   byte(s) of direct memory (used: 145948679, max: 146014208)", the connection's request failed
 *   (docs/PERFORMANCE.md, "Event loops and held reads at 1,000 streams").
 * </pre>
 */
final class HeldReads {
  // The kinds of event held.
  static final byte READ = 0;
  static final byte READ_COMPLETE = 1;
  static final byte INACTIVE = 2;
  static final byte EXCEPTION = 3;

  /** Read data held in one turn beyond which the turn's events are handed on at once. */
  static final int MAX_HELD_BYTES = 4 << 20;

  boolean reading; // the loop is reading the sockets of a wake-up: events are held
  private long heldBytes;
  private ReadStamp[] targets = new ReadStamp[64];
  private ChannelHandlerContext[] contexts = new ChannelHandlerContext[64];
  private Object[] messages = new Object[64];
  private long[] stamps = new long[64];
  private byte[] kinds = new byte[64];
  private int size;

  /** The loop starts reading the sockets of one wake-up. */
  void beginTurn() {
    reading = true;
    heldBytes = 0;
  }

  /** Holds one event; {@code message} is the read's message or the exception, else null. */
  void hold(ReadStamp target, ChannelHandlerContext ctx, byte kind, Object message, long nanos) {
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
    if (message instanceof ByteBuf b) {
      heldBytes += b.readableBytes();
      if (heldBytes > MAX_HELD_BYTES) {
        endTurn(); // hands on what is held; the rest of this turn passes through
      }
    }
  }

  /** The read phase is over: hands on every held event in the order it came. */
  void endTurn() {
    reading = false;
    int i = 0;
    try {
      for (; i < size; i++) {
        ReadStamp target = targets[i];
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
