package dev.tokenmeter.proxy;

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
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * One upstream connection: timestamps each socket read before HTTP decoding, routes the decoded
 * response to the connection's current {@link ProxyExchange}, and asks it to flush the client once
 * per read. Idle connections wait in a per-event-loop pool (keep-alive); an idle connection that
 * reads anything or closes leaves the pool. Confined to its event loop.
 */
final class UpstreamLink extends ChannelInboundHandlerAdapter {
  /** Idle connections by upstream name, per event loop: no locks, no sharing across loops. */
  private static final FastThreadLocal<Map<String, ArrayDeque<Channel>>> IDLE =
      new FastThreadLocal<>() {
        @Override
        protected Map<String, ArrayDeque<Channel>> initialValue() {
          return new HashMap<>();
        }
      };

  private final String upstream;
  private final Ticker ticker;
  private long readNanos;
  private ProxyExchange current;
  private boolean idle;

  UpstreamLink(String upstream, Ticker ticker) {
    this.upstream = upstream;
    this.ticker = ticker;
  }

  /** The handler that goes before the HTTP codec. */
  ChannelHandler stamp() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        readNanos = ticker.nanos();
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
    ArrayDeque<Channel> q = IDLE.get().get(upstream);
    while (q != null && !q.isEmpty()) {
      Channel ch = q.pollLast(); // most recently used first: least likely to have timed out
      UpstreamLink link = ch.pipeline().get(UpstreamLink.class);
      link.idle = false;
      if (ch.isActive()) {
        return ch;
      }
    }
    return null;
  }

  /** Returns {@code ch} to its loop's pool, or closes it when it is not clean. */
  static void release(Channel ch) {
    UpstreamLink link = ch.pipeline().get(UpstreamLink.class);
    link.current = null;
    if (!ch.isActive()) {
      return;
    }
    ch.config().setAutoRead(true);
    link.idle = true;
    IDLE.get().computeIfAbsent(link.upstream, k -> new ArrayDeque<>()).addLast(ch);
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
    if (idle) {
      idle = false;
      ArrayDeque<Channel> q = IDLE.get().get(upstream);
      if (q != null) {
        q.remove(ctx.channel());
      }
    }
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
