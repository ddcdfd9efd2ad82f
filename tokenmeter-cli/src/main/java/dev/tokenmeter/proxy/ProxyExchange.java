package dev.tokenmeter.proxy;

import dev.tokenmeter.client.StaleResend;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.proxy.ProxyContext.UpstreamState;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One request through the proxy, on the client connection's event loop (its upstream connection
 * runs on the same loop): forwards the request, streams the response back read by read, and
 * tells the record path what happened, by {@link RecordEvent}s that never wait.
 *
 * <p>Stream path rules: each upstream read is written to the client and flushed once, at the end
 * of that read ({@link #afterRead}); nothing is buffered except an incomplete SSE event while the
 * usage chunk is being removed ({@link UsageChunkFilter}) and the body of a 400 answer to an added
 * {@code stream_options} (at most 64 KiB, to retry without it). When the client cannot take more
 * (its channel is not writable), the upstream connection stops reading until it can. A client
 * that leaves closes the upstream connection at once, which cancels the request upstream.
 */
final class ProxyExchange {
  private static final int MAX_HELD_400_BYTES = 64 << 10;
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final int CRLF = ('\r' << 8) | '\n';
  private static final int CONNECT_TIMEOUT_MILLIS = 10_000;

  private final ProxyContext ctx;
  private final FrontHandler front;
  private final Channel client;
  private final HttpRequest request;
  private final byte[] body;
  private final RequestBody parsed;
  private final UpstreamState state;
  private final Upstream target;
  private final String requestId;
  private final RequestInfo info;
  private final boolean clientKeepAlive;
  private final BudgetBook.Hold hold;
  private RequestState recordState;
  private boolean addUsage;
  private byte[] bodyWithUsage;
  private Channel upstream;
  private UpstreamLink link;
  private final StaleResend resend = new StaleResend();
  private boolean responded;
  private boolean informational;
  private boolean recordBody;
  private boolean upstreamKeepAlive;
  private boolean pendingFlush;
  private boolean ended;
  private UsageChunkFilter filter;
  /**
   * Where the response's body goes: the client pipeline's HTTP codec, written past (toward the
   * socket), so each read leaves as one buffer instead of the encoder's chunk header, content and
   * CRLF (three buffers, a promise combiner and its listeners per token). Headers and the last
   * chunk still go through the encoder, which keeps its state.
   */
  private ChannelHandlerContext bodyOut;
  /** Whether the client's response is chunked: each body buffer is framed here. */
  private boolean chunkedToClient;
  private HttpResponse held400;
  private ByteBuf held400Body;
  private long held400Nanos;

  ProxyExchange(
      ProxyContext ctx,
      FrontHandler front,
      Channel client,
      HttpRequest request,
      byte[] body,
      RequestBody parsed,
      UpstreamState state,
      RequestInfo info,
      BudgetBook.Hold hold) {
    this.hold = hold;
    this.ctx = ctx;
    this.front = front;
    this.client = client;
    this.request = request;
    this.body = body;
    this.parsed = parsed;
    this.state = state;
    this.target = state.upstream;
    this.info = info;
    this.requestId = info.requestId();
    this.clientKeepAlive = HttpUtil.isKeepAlive(request);
  }

  HttpRequest request() {
    return request;
  }

  void start() {
    int inFlight = state.inFlight.getAndIncrement();
    if (ctx.metricsOrNull != null) {
      ctx.metricsOrNull.started(target.name());
    }
    recordState = ctx.record.open(info.withInFlightAtStart(inFlight), hold);
    addUsage = info.route().takesUsageOption() && parsed.canAddUsage() && !state.refusesUsageOption.get();
    connect(/* fresh= */ false);
  }

  // ---- connecting and sending ----

  private void connect(boolean fresh) {
    Channel idle = fresh ? null : UpstreamLink.pollIdle(target.name());
    if (idle != null) {
      attach(idle, true);
      return;
    }
    Bootstrap b =
        new Bootstrap()
            .group(client.eventLoop())
            .channel(ctx.channelClass)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    UpstreamLink l = new UpstreamLink(ctx.ticker);
                    ch.pipeline().addLast(l.stamp()); // reads are timed before TLS touches them
                    if (state.sslOrNull != null) {
                      // The request waits for the handshake, so "sent" and TTFT exclude it.
                      ch.pipeline().addLast(state.sslOrNull.newHandler(ch.alloc(), target.host(), target.port()));
                    }
                    ch.pipeline().addLast(new HttpClientCodec()).addLast(l);
                  }
                });
    b.connect(target.host(), target.port())
        .addListener(
            (ChannelFuture f) -> {
              if (f.isSuccess()) {
                ctx.channels.add(f.channel());
                UpstreamLink.pool(target.name()).opened(f.channel());
                if (ended) {
                  f.channel().close();
                } else {
                  attach(f.channel(), false);
                }
              } else if (!ended) {
                connectFailed(message(f.cause()));
              }
            });
  }

  private void attach(Channel ch, boolean reused) {
    this.upstream = ch;
    resend.sending(reused);
    this.link = ch.pipeline().get(UpstreamLink.class);
    link.attach(this);
    ch.writeAndFlush(upstreamRequest())
        .addListener(
            f -> {
              if (ended || upstream != ch) {
                return;
              }
              if (f.isSuccess()) {
                ctx.record.offer(new RecordEvent.Sent(recordState, ctx.ticker.nanos()));
              } else if (resend.afterWriteFailure()) {
                // A pooled connection the upstream had closed: nothing reached it, send again.
                link.detach();
                ch.close();
                connect(/* fresh= */ true);
              } else {
                link.detach();
                ch.close();
                connectFailed("cannot send the request: " + message(f.cause()));
              }
            });
  }

  private DefaultFullHttpRequest upstreamRequest() {
    if (addUsage && bodyWithUsage == null) {
      bodyWithUsage = parsed.withUsage();
    }
    return UpstreamRequest.of(request, addUsage ? bodyWithUsage : body, target, requestId);
  }

  // ---- the response, read by read ----

  void onResponse(HttpResponse resp, long nanos) {
    resend.responded();
    int status = resp.status().code();
    if (status >= 100 && status < 200 && status != 101) {
      informational = true; // 103 Early Hints and the like: not the response
      return;
    }
    upstreamKeepAlive = HttpUtil.isKeepAlive(resp);
    if (addUsage && status == 400 && held400 == null) {
      held400 = resp;
      held400Body = Unpooled.buffer(512);
      held400Nanos = nanos;
      return;
    }
    forwardHeaders(resp, nanos);
  }

  private void forwardHeaders(HttpResponse resp, long nanos) {
    int status = resp.status().code();
    String ct = resp.headers().get(HttpHeaderNames.CONTENT_TYPE);
    ct = ct == null ? "" : ct.toLowerCase(Locale.ROOT);
    ctx.record.offer(new RecordEvent.Headers(recordState, status, ct, nanos));
    recordBody = recordState.info.generation() || status < 200 || status >= 300;
    HttpHeaders h = HopByHop.strip(resp.headers().copy());
    boolean bodyless = request.method().equals(HttpMethod.HEAD) || status == 204 || status == 304;
    chunkedToClient = !bodyless && !HttpUtil.isContentLengthSet(resp);
    if (chunkedToClient) {
      h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    if (!h.contains("x-request-id")) {
      h.set("x-request-id", requestId);
    }
    if (!clientKeepAlive) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    if (addUsage && status >= 200 && status < 300 && ct.startsWith("text/event-stream")) {
      filter = new UsageChunkFilter();
    }
    client.write(new DefaultHttpResponse(HttpVersion.HTTP_1_1, resp.status(), h));
    responded = true;
    pendingFlush = true;
  }

  void onContent(ByteBuf content, long nanos) {
    if (informational) {
      return;
    }
    if (held400 != null) {
      if (held400Body.readableBytes() + content.readableBytes() <= MAX_HELD_400_BYTES) {
        held400Body.writeBytes(content, content.readerIndex(), content.readableBytes());
        return;
      }
      forwardHeld(); // too long to be the refusal we retry: the client gets it as it is
    }
    if (!content.isReadable()) {
      return;
    }
    if (recordBody) {
      ctx.record.offer(new RecordEvent.Bytes(recordState, ByteBufUtil.getBytes(content), nanos));
    }
    if (filter != null) {
      filter.forward(content, this::writeClient);
    } else if (chunkedToClient) {
      writeChunk(content);
    } else {
      writeClient(content.retainedDuplicate());
    }
    if (!client.isWritable()) {
      upstream.config().setAutoRead(false); // the client reads slowly: stop reading, not buffer
    }
  }

  /** Writes {@code b} to the client as body bytes, and releases it. */
  private void writeClient(ByteBuf b) {
    if (chunkedToClient) {
      writeChunk(b);
      b.release();
    } else if (b.isReadable()) {
      bodyOut().write(b);
      pendingFlush = true;
    } else {
      b.release();
    }
  }

  /**
   * Writes {@code b}'s readable bytes as one HTTP chunk, framing and all, in one buffer; {@code b}
   * is not released. An empty {@code b} writes nothing (an empty chunk would end the body).
   */
  private void writeChunk(ByteBuf b) {
    int n = b.readableBytes();
    if (n == 0) {
      return;
    }
    int digits = (35 - Integer.numberOfLeadingZeros(n)) >> 2; // hex digits of n > 0
    ByteBuf out = client.alloc().buffer(digits + n + 4);
    for (int shift = (digits - 1) << 2; shift >= 0; shift -= 4) {
      out.writeByte(HEX[(n >>> shift) & 0xF]);
    }
    out.writeShort(CRLF);
    out.writeBytes(b, b.readerIndex(), n);
    out.writeShort(CRLF);
    bodyOut().write(out);
    pendingFlush = true;
  }

  private ChannelHandlerContext bodyOut() {
    if (bodyOut == null) {
      bodyOut = client.pipeline().context(HttpServerCodec.class);
    }
    return bodyOut;
  }

  void onLast(long nanos) {
    if (informational) {
      informational = false;
      return;
    }
    if (held400 != null) {
      if (held400Body.toString(StandardCharsets.UTF_8).contains("stream_options")) {
        retryWithoutUsage();
        return;
      }
      forwardHeld();
    }
    if (filter != null) {
      filter.finish(this::writeClient);
    }
    client.write(LastHttpContent.EMPTY_LAST_CONTENT);
    pendingFlush = true;
    flushClient();
    releaseUpstream();
    end(RecordEvent.Ending.BODY_END, null, nanos, clientKeepAlive);
  }

  /** The upstream refused the added option: remember it and send the client's own body. */
  private void retryWithoutUsage() {
    state.refusesUsageOption.set(true);
    held400Body.release();
    held400Body = null;
    held400 = null;
    addUsage = false;
    releaseUpstream();
    connect(/* fresh= */ false);
  }

  /** The response ended cleanly: pool the connection if the upstream keeps it alive, else close. */
  private void releaseUpstream() {
    Channel up = upstream;
    upstream = null;
    UpstreamLink.release(target.name(), up, upstreamKeepAlive);
  }

  private void forwardHeld() {
    HttpResponse resp = held400;
    ByteBuf b = held400Body;
    held400 = null;
    held400Body = null;
    forwardHeaders(resp, held400Nanos);
    if (b.isReadable()) {
      ctx.record.offer(new RecordEvent.Bytes(recordState, ByteBufUtil.getBytes(b), held400Nanos));
      writeClient(b);
    } else {
      b.release();
    }
  }

  /** Called once after every upstream read: flushes what that read wrote. */
  void afterRead() {
    flushClient();
  }

  private void flushClient() {
    if (pendingFlush) {
      pendingFlush = false;
      client.flush();
    }
  }

  /** The client can take more: read the upstream again. */
  void resumeUpstream() {
    if (upstream != null && client.isWritable()) {
      upstream.config().setAutoRead(true);
    }
  }

  // ---- endings ----

  void upstreamClosed(long nanos) {
    if (ended) {
      return;
    }
    upstream = null;
    if (held400 != null) {
      forwardHeld();
    }
    if (filter != null) {
      filter.finish(this::writeClient); // a truncated stream stays truncated, byte for byte
    }
    closeClientAfterWrites();
    end(RecordEvent.Ending.UPSTREAM_CLOSED, null, nanos, false);
  }

  void upstreamProtocolError(String message, long nanos) {
    if (ended) {
      return;
    }
    upstream = null;
    if (!responded && held400 == null) {
      client.writeAndFlush(
              Responses.error(502, "tokenmeter proxy: " + message, "upstream_error", "bad_gateway", requestId, false))
          .addListener(ChannelFutureListener.CLOSE);
    } else {
      discardHeld();
      closeClientAfterWrites();
    }
    end(RecordEvent.Ending.UPSTREAM_PROTOCOL, message, nanos, false);
  }

  private void connectFailed(String message) {
    // The client learns which upstream failed, never its address: that stays in the ledger row.
    String text = "tokenmeter proxy: cannot reach upstream '" + target.name() + "'";
    client.writeAndFlush(
        Responses.error(502, text, "upstream_connect_error", "bad_gateway", requestId, clientKeepAlive));
    end(RecordEvent.Ending.CONNECT_FAILED, target.hostHeader() + ": " + message, ctx.ticker.nanos(), clientKeepAlive);
  }

  /** The client went away: cancel upstream at once by closing its connection. */
  void clientClosed() {
    if (ended) {
      return;
    }
    if (upstream != null) {
      link.detach();
      upstream.close();
      upstream = null;
    }
    discardHeld();
    end(RecordEvent.Ending.CLIENT_CANCELLED, "client disconnected", ctx.ticker.nanos(), false);
  }

  private void discardHeld() {
    if (filter != null) {
      filter.discard();
    }
    if (held400Body != null) {
      held400Body.release();
      held400Body = null;
      held400 = null;
    }
  }

  private void closeClientAfterWrites() {
    pendingFlush = false;
    client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  private void end(RecordEvent.Ending ending, String message, long nanos, boolean clientReusable) {
    ended = true;
    state.inFlight.decrementAndGet();
    if (ctx.metricsOrNull != null) {
      ctx.metricsOrNull.ended(target.name());
    }
    ctx.record.offer(new RecordEvent.Ended(recordState, ending, message, nanos));
    front.exchangeEnded(this, clientReusable);
  }

  private static String message(Throwable t) {
    if (t == null) {
      return "unknown error";
    }
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }
}
