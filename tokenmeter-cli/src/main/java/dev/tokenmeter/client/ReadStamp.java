package dev.tokenmeter.client;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The head of a connection's pipeline, before TLS and HTTP decoding: stamps each socket read once,
 * the moment it returns, and hands it on with that stamp; every item decoded from the read carries
 * it. The one read stamp of bench's connections and of the proxy's upstream connections. Confined
 * to the connection's event loop.
 *
 * <p>Bench's loops also hold each read (and the connection's later events) while the loop is still
 * reading the other sockets of the same wake-up ({@link HeldReads}), so that no read is stamped
 * after the processing of those before it; the proxy's upstream connections hand each read on at
 * once ({@link #ReadStamp()}).
 */
public abstract class ReadStamp extends ChannelInboundHandlerAdapter {
  private final HeldReads heldOrNull;

  /** A stamp that hands each read on at once. */
  protected ReadStamp() {
    this(null);
  }

  /** A stamp whose reads {@code heldOrNull} holds during its loop's read phase. */
  ReadStamp(HeldReads heldOrNull) {
    this.heldOrNull = heldOrNull;
  }

  /** The time of the read that just returned, in the ticker's nanoseconds. */
  protected abstract long stamp();

  /**
   * Hands on a read stamped at {@code nanos}: note the connection's read time, then pass {@code
   * msg} on ({@code ctx.fireChannelRead}); {@code msg} is the callee's to pass or release.
   */
  protected abstract void deliverRead(ChannelHandlerContext ctx, Object msg, long nanos);

  private boolean holding() {
    return heldOrNull != null && heldOrNull.reading;
  }

  @Override
  public final void channelRead(ChannelHandlerContext ctx, Object msg) {
    long nanos = stamp();
    if (holding()) {
      heldOrNull.hold(this, ctx, HeldReads.READ, msg, nanos);
    } else {
      deliverRead(ctx, msg, nanos);
    }
  }

  @Override
  public final void channelReadComplete(ChannelHandlerContext ctx) {
    if (holding()) {
      heldOrNull.hold(this, ctx, HeldReads.READ_COMPLETE, null, 0);
    } else {
      ctx.fireChannelReadComplete();
    }
  }

  @Override
  public final void channelInactive(ChannelHandlerContext ctx) {
    if (holding()) {
      heldOrNull.hold(this, ctx, HeldReads.INACTIVE, null, 0);
    } else {
      ctx.fireChannelInactive();
    }
  }

  @Override
  public final void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (holding()) {
      heldOrNull.hold(this, ctx, HeldReads.EXCEPTION, cause, 0);
    } else {
      ctx.fireExceptionCaught(cause);
    }
  }
}
