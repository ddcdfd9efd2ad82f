package dev.tokenmeter.client;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.sse.SseFramer;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * One per connection: routes decoded HTTP objects to the connection's current exchange, and (via
 * {@link #stamp()}) timestamps every socket read before TLS or HTTP decoding touch it.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
  private final ApiEndpoint endpoint;
  private final Ticker ticker;
  private final ChannelHandler stamp;
  private long readNanos;
  private ClientExchange current;
  /** After an exchange ended early (on [DONE]) the rest of its body is drained before reuse. */
  private boolean draining;
  /** The connection's SSE framer, reset for each response: its buffers are not allocated per request. */
  private SseFramer framer;

  ConnectionHandler(ApiEndpoint endpoint, Ticker ticker, ReadBatchProbe readBatches, HeldReads held) {
    this.endpoint = endpoint;
    this.ticker = ticker;
    this.stamp = new Stamp(readBatches, held);
  }

  /** Stamps each socket read with the ticker and notes it in the loop's read-batch probe. */
  private final class Stamp extends ReadStamp {
    private final ReadBatchProbe readBatches;

    Stamp(ReadBatchProbe readBatches, HeldReads held) {
      super(held);
      this.readBatches = readBatches;
    }

    @Override
    protected long stamp() {
      long nanos = ticker.nanos();
      readBatches.read(nanos);
      return nanos;
    }

    @Override
    protected void deliverRead(ChannelHandlerContext ctx, Object msg, long nanos) {
      readNanos = nanos;
      ctx.fireChannelRead(msg);
    }
  }

  ChannelHandler stamp() {
    return stamp;
  }

  /**
   * The connection's SSE framer, reset for a new response; its events go to the current exchange
   * (none once it ended: a drained body's events are dropped).
   */
  SseFramer sseFramer() {
    if (framer == null) {
      framer =
          SseFramer.lending(
              (type, data, offset, length) -> {
                ClientExchange x = current;
                if (x != null) {
                  x.onEvent(type, data, offset, length);
                }
              });
    } else {
      framer.reset();
    }
    return framer;
  }

  void attach(ClientExchange x) {
    current = x;
    draining = false;
  }

  /** The exchange ended but its response body is still arriving: drain it, then pool the channel. */
  void drain() {
    current = null;
    draining = true;
  }

  void detach() {
    current = null;
    draining = false;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (!(msg instanceof HttpObject obj)) {
        return;
      }
      DecoderResult r = obj.decoderResult();
      ClientExchange x = current;
      if (r.isFailure()) {
        if (x != null) {
          x.protocolError("invalid HTTP response: " + r.cause().getMessage(), readNanos);
        }
        ctx.close();
        return;
      }
      if (x == null) {
        if (draining && msg instanceof LastHttpContent) {
          draining = false;
          endpoint.release(ctx.channel(), /* keepAlive= */ true);
        } else if (!draining) {
          ctx.close(); // bytes nobody asked for: this connection is not clean any more
        }
        return;
      }
      if (msg instanceof HttpResponse resp) {
        x.onHeaders(resp, readNanos);
      }
      if (msg instanceof HttpContent content && current == x) {
        x.onContent(content.content(), readNanos);
        if (msg instanceof LastHttpContent) {
          if (current == x) {
            x.onLast(readNanos);
          } else if (draining) { // [DONE] ended the exchange in this very read
            draining = false;
            endpoint.release(ctx.channel(), /* keepAlive= */ true);
          }
        }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    ClientExchange x = current;
    current = null;
    if (x != null) {
      x.onClosed(ticker.nanos());
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ClientExchange x = current;
    current = null;
    if (x != null) {
      x.onTransportError(cause, ticker.nanos());
    }
    ctx.close();
  }
}
