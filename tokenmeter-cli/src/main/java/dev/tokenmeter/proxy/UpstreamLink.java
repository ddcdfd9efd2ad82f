package dev.tokenmeter.proxy;

import dev.tokenmeter.client.KeepAlivePool;
import dev.tokenmeter.client.ReadStamp;
import dev.tokenmeter.core.time.Ticker;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.HashMap;
import java.util.Map;

/**
 * One upstream connection: its reads stamped by {@code client}'s {@link ReadStamp} before HTTP
 * decoding, the decoded response routed to the connection's current {@link ProxyExchange}, which
 * is asked to flush the client once per read. Idle connections wait in {@code client}'s {@link
 * KeepAlivePool}, one per event loop and upstream (keep-alive, no locks, no sharing across loops).
 * Confined to its event loop.
 */
final class UpstreamLink extends ChannelInboundHandlerAdapter {
  /** Idle connections by upstream name, per event loop. */
  private static final FastThreadLocal<Map<String, KeepAlivePool>> POOLS =
      new FastThreadLocal<>() {
        @Override
        protected Map<String, KeepAlivePool> initialValue() {
          return new HashMap<>();
        }
      };

  private final Ticker ticker;
  private long readNanos;
  private ProxyExchange current;

  UpstreamLink(Ticker ticker) {
    this.ticker = ticker;
  }

  /** The calling event loop's pool of idle connections to {@code upstream}. */
  static KeepAlivePool pool(String upstream) {
    return POOLS.get().computeIfAbsent(upstream, k -> new KeepAlivePool());
  }

  /** The handler that goes before the HTTP codec. */
  ChannelHandler stamp() {
    return new ReadStamp() {
      @Override
      protected long stamp() {
        return ticker.nanos();
      }

      @Override
      protected void deliverRead(ChannelHandlerContext ctx, Object msg, long nanos) {
        readNanos = nanos;
        ProxyExchange atRead = current;
        ctx.fireChannelRead(msg);
        if (atRead != null) {
          atRead.afterRead(); // one flush to the client per upstream read, never coalesced
        }
      }
    };
  }

  /** A pooled idle connection to {@code upstream} on the calling event loop, or null. */
  static Channel pollIdle(String upstream) {
    return pool(upstream).poll();
  }

  /**
   * A response on {@code ch} to {@code upstream} ended cleanly: pooled if the upstream keeps it
   * alive ({@code keepAlive}), else closed.
   */
  static void release(String upstream, Channel ch, boolean keepAlive) {
    UpstreamLink link = ch.pipeline().get(UpstreamLink.class);
    link.current = null;
    ch.config().setAutoRead(true); // the exchange may have paused it for a slow client
    pool(upstream).release(ch, keepAlive);
  }

  void attach(ProxyExchange x) {
    current = x;
  }

  void detach() {
    current = null;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      ProxyExchange x = current;
      if (x == null || !(msg instanceof HttpObject obj)) {
        ctx.close(); // bytes nobody asked for: this connection is not clean any more
        return;
      }
      if (obj.decoderResult().isFailure()) {
        current = null;
        Throwable cause = obj.decoderResult().cause();
        if (cause instanceof PrematureChannelClosureException) {
          x.upstreamClosed(ticker.nanos()); // decoded at channelInactive, not in a read
        } else {
          x.upstreamProtocolError("invalid HTTP response from upstream: " + cause.getMessage(), readNanos);
        }
        ctx.close();
        return;
      }
      if (msg instanceof HttpResponse resp) {
        x.onResponse(resp, readNanos);
      }
      if (msg instanceof HttpContent content && current == x) {
        x.onContent(content.content(), readNanos);
        if (msg instanceof LastHttpContent && current == x) {
          x.onLast(readNanos);
        }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    ProxyExchange x = current;
    current = null;
    if (x != null) {
      x.upstreamClosed(ticker.nanos());
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close(); // channelInactive ends the exchange
  }
}
