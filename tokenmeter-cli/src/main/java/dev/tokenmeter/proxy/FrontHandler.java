package dev.tokenmeter.proxy;

import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.ProxyContext.UpstreamState;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayDeque;

/**
 * One client connection: takes each whole request, refuses what must be refused (no known key, a
 * tenant the key may not bill, over budget, unknown upstream, over the in-flight limits ({@link
 * Admission}); each refusal is answered, recorded
 * as a ledger row and counted), serves {@code /metrics} and {@code /dashboard}, and runs one {@link ProxyExchange} at a time,
 * queueing pipelined requests behind it (HTTP/1.1 answers in order). Confined to its event loop.
 */
final class FrontHandler extends ChannelInboundHandlerAdapter {
  /** A request as received: whole, or only the head of one whose body is over the limit. */
  private record Pending(FullHttpRequest request, long nanos, long epochMillis, HttpRequest tooLargeOrNull) {
    Pending(FullHttpRequest request, long nanos, long epochMillis) {
      this(request, nanos, epochMillis, null);
    }
  }

  private final ProxyContext ctx;
  private final ArrayDeque<Pending> queued = new ArrayDeque<>();
  private ChannelHandlerContext chc;
  private ProxyExchange current;
  /** The request passing the in-flight limits, then its exchange's slots until it ends; null when none. */
  private Admission admission;
  /** The budget hold of the request that waits in {@link #admission}'s queue. */
  private BudgetBook.Hold waitingHold;
  /** A dashboard feed is being computed: later requests wait for its answer (HTTP/1.1 order). */
  private boolean awaitingFeed;
  /** Opened past the connection limit: answered 503, closing. */
  private boolean refusedConnection;
  private long headersNanos;
  private long headersEpochMillis;

  FrontHandler(ProxyContext ctx) {
    this.ctx = ctx;
  }

  /** Goes between the HTTP codec and the aggregator: stamps when a request's headers arrive. */
  ChannelHandler headerStamp() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext c, Object msg) {
        if (msg instanceof HttpRequest) {
          headersNanos = ctx.ticker.nanos();
          headersEpochMillis = ctx.clock.millis();
        }
        c.fireChannelRead(msg);
      }
    };
  }

  @Override
  public void channelActive(ChannelHandlerContext c) {
    chc = c;
    if (ctx.connections.incrementAndGet() > ctx.config.admission().maxConnections()) {
      // unasked, before any request: an HTTP/1.1 client reads it as the answer to what it sends
      ctx.refusedConnections.increment();
      refusedConnection = true;
      String message = "tokenmeter proxy: over capacity: " + ctx.config.admission().maxConnections()
          + " client connections are open (its limit); retry after 1 s";
      FullHttpResponse r = Responses.overloaded(message, 1, null, false);
      // Half-close and read on for 1 s before closing: closing with the client's request unread
      // would reset the connection, and the client would lose the answer.
      c.writeAndFlush(r).addListener(f -> {
        if (c.channel() instanceof io.netty.channel.socket.DuplexChannel d) {
          d.shutdownOutput();
        }
        c.channel().eventLoop().schedule(() -> c.close(), 1, java.util.concurrent.TimeUnit.SECONDS);
      });
      return;
    }
    ctx.channels.add(c.channel());
    c.fireChannelActive();
  }

  /** Closes a connection idle for {@link AdmissionLimits#idleTimeoutNanos()} unless a request is in flight on it. */
  @Override
  public void userEventTriggered(ChannelHandlerContext c, Object event) {
    if (event instanceof io.netty.handler.timeout.IdleStateEvent) {
      if (current == null && admission == null && !awaitingFeed && queued.isEmpty()) {
        c.close();
      }
      return;
    }
    c.fireUserEventTriggered(event);
  }

  @Override
  public void channelRead(ChannelHandlerContext c, Object msg) {
    if (refusedConnection) {
      io.netty.util.ReferenceCountUtil.release(msg); // answered 503 already; read only to close cleanly
      return;
    }
    if (!(msg instanceof FullHttpRequest request)) {
      c.fireChannelRead(msg);
      return;
    }
    queued.add(new Pending(request, headersNanos, headersEpochMillis));
    drain();
  }

  private void drain() {
    while (current == null && admission == null && !awaitingFeed && !queued.isEmpty() && chc.channel().isActive()) {
      Pending p = queued.poll();
      if (p.tooLargeOrNull() != null) {
        refuseTooLarge(p);
        continue;
      }
      try {
        handle(p);
      } finally {
        p.request().release();
      }
    }
  }

  /**
   * A request whose body is over the limit (from {@link BodyLimit}): answered 413 in its turn among
   * pipelined requests, recorded, and the connection closed (its body is not read further).
   */
  void tooLarge(HttpRequest head) {
    if (refusedConnection) {
      return; // answered 503 already
    }
    queued.add(new Pending(null, headersNanos, headersEpochMillis, head));
    drain();
  }

  private void refuseTooLarge(Pending p) {
    HttpRequest head = p.tooLargeOrNull();
    String path = new QueryStringDecoder(head.uri()).rawPath();
    String tenant = switch (ctx.config.tenants().resolve(head.headers())) {
      case Tenants.Result.Refused no -> no.tenant();
      case Tenants.Result.Tenant t -> t.name();
    };
    String requestId = head.headers().get("x-request-id");
    requestId = requestId == null || requestId.isBlank() ? ctx.nextRequestId() : requestId;
    int max = ctx.config.maxRequestBytes();
    String message = "tokenmeter proxy: the request body is over "
        + (max % (1 << 20) == 0 ? (max >> 20) + " MiB" : max + " bytes") + ", this proxy's limit; send a smaller one";
    Refusal r = new Refusal(p, path, Route.of(path), tenant, null, requestId, false, null);
    refuse(r, "too_large", Responses.error(413, message, "invalid_request_error", "request_too_large", requestId, false),
        message);
  }

  private void handle(Pending p) {
    FullHttpRequest req = p.request();
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    if (req.decoderResult().isFailure()) {
      Refusal r = new Refusal(p, "-", Route.OTHER, MeteredRequest.ANONYMOUS, null, ctx.nextRequestId(), false, null);
      refuse(r, "invalid", Responses.error(400, "tokenmeter proxy: invalid HTTP request", "invalid_request_error",
          "bad_request", null, false), "invalid HTTP request");
      return;
    }
    String path = new QueryStringDecoder(req.uri()).rawPath();
    if (DashboardRoutes.owns(path)) { // the proxy's own page: not passed on, not metered
      switch (DashboardRoutes.answer(ctx, req, keepAlive)) {
        case DashboardRoutes.Answer.Now now -> respond(now.response(), keepAlive);
        case DashboardRoutes.Answer.Feed feed -> feed(feed.windowSeconds(), keepAlive);
      }
      return;
    }
    if (ctx.metricsOrNull != null && path.equals("/metrics") && req.method().equals(HttpMethod.GET)) {
      respond(metrics(req, keepAlive), keepAlive);
      return;
    }
    String requestId = req.headers().get("x-request-id");
    requestId = requestId == null || requestId.isBlank() ? ctx.nextRequestId() : requestId;
    Route route = Route.of(path);
    byte[] body = ByteBufUtil.getBytes(req.content());
    RequestBody parsed =
        req.method().equals(HttpMethod.POST) ? RequestBody.parse(body) : RequestBody.OPAQUE;
    String model = route.model(path, parsed.model());
    String conversation = ConversationKey.of(req.headers(), ctx.config.conversationHeaderOrNull(), parsed.treeOrNull());
    switch (ctx.config.tenants().resolve(req.headers())) {
      case Tenants.Result.Refused no -> {
        Refusal r = new Refusal(p, path, route, no.tenant(), model, requestId, keepAlive, conversation);
        refuse(r, no.status() == 401 ? "auth" : "tenant",
            Responses.error(no.status(), no.message(), "invalid_request_error", no.code(), requestId, keepAlive),
            no.message());
      }
      case Tenants.Result.Tenant t -> {
        Refusal r = new Refusal(p, path, route, t.name(), model, requestId, keepAlive, conversation);
        BudgetBook.Hold hold = admit(r, body.length, parsed);
        if (hold != null) {
          forward(r, req, body, parsed, hold);
        }
      }
    }
  }

  /** What a refused request's answer and ledger row need: who asked, for what. */
  private record Refusal(
      Pending pending, String path, Route route, String tenant, String model, String requestId, boolean keepAlive,
      String conversation) {}

  private void forward(Refusal r, FullHttpRequest req, byte[] body, RequestBody parsed, BudgetBook.Hold hold) {
    Upstream upstream = ctx.route(r.model(), req.headers());
    if (upstream == null) {
      hold.settle(0, 0, 0);
      String message = "tokenmeter proxy: header " + ctx.config.routing().headerOrNull() + " names no upstream;"
          + " upstreams: " + String.join(", ", ctx.config.routing().upstreams().keySet());
      refuse(r, "upstream", Responses.error(400, message, "invalid_request_error", "unknown_upstream",
          r.requestId(), r.keepAlive()), message);
      return;
    }
    UpstreamState state = ctx.state(upstream);
    RequestInfo info =
        new RequestInfo(
            r.requestId(), r.pending().epochMillis(), r.pending().nanos(), r.tenant(),
            r.model(), upstream.name(), r.path(), r.route(), -1, r.conversation(), parsed.streams(r.route()),
            r.route().generation() ? ctx.config.promptCapture().blocks(parsed.treeOrNull()) : null);
    HttpRequest head =
        new DefaultHttpRequest(req.protocolVersion(), req.method(), req.uri(), req.headers().copy());
    waitingHold = hold;
    admission = new Admission(state.gates, state.gateNames, chc.channel().eventLoop(), ctx.config.admission(),
        new Admission.Listener() {
          @Override
          public void admitted() {
            waitingHold = null;
            current = new ProxyExchange(ctx, FrontHandler.this, chc.channel(), head, body, parsed, state, info, hold);
            current.start();
          }

          @Override
          public void refused(String message) {
            overloaded(r, hold, message);
          }
        });
    admission.start();
  }

  /** 503 with {@code Retry-After}: the in-flight limits are full and the request could not wait longer. */
  private void overloaded(Refusal r, BudgetBook.Hold hold, String message) {
    admission = null;
    waitingHold = null;
    hold.settle(0, 0, 0);
    refuse(r, "overload", Responses.overloaded(message, ctx.config.admission().retryAfterSeconds(), r.requestId(),
        r.keepAlive()), message);
    chc.channel().eventLoop().execute(this::drain); // a refusal after waiting: the next pipelined request
  }

  /**
   * Answers a request the proxy refuses itself and records it: one ledger row (upstream {@code -},
   * its status and class), one count of {@code reason} in the metrics. Never waits.
   */
  private void refuse(Refusal r, String reason, FullHttpResponse response, String message) {
    respond(response, r.keepAlive());
    ctx.refused(reason);
    RequestInfo info =
        new RequestInfo(r.requestId(), r.pending().epochMillis(), r.pending().nanos(), r.tenant(), r.model(),
            MeteredRequest.NO_UPSTREAM, r.path(), r.route(), -1, r.conversation(), false);
    ctx.record.offer(new RecordEvent.Refused(ctx.record.open(info), response.status().code(), message));
  }

  /**
   * The budget hold of a generation request: its worst case reserved, the prompt estimated at one
   * token per 4 bytes of body and the output at the route's own limit times the answers asked for
   * ({@link Route#maxOutputTokens}); when it names none, its model's context less the prompt, or
   * the configured default when the context is not known ({@link ContextLengths#outputHold}). Null when
   * refused (the 429 is written and recorded).
   */
  private BudgetBook.Hold admit(Refusal r, int bodyBytes, RequestBody parsed) {
    if (ctx.budgetsOrNull == null || !r.route().generation() || !ctx.budgetsOrNull.governs(r.tenant())) {
      return BudgetBook.Hold.NONE;
    }
    long prompt = (bodyBytes + 3L) / 4;
    long out = ContextLengths.outputHold(r.route().maxOutputTokens(parsed.treeOrNull()),
        parsed.treeOrNull() == null ? 1 : r.route().answers(parsed.treeOrNull()), prompt, ctx.contexts.of(r.model()),
        ctx.config.budgets().defaultOutputTokens());
    return switch (ctx.budgetsOrNull.admit(r.tenant(), r.model(), prompt, out)) {
      case BudgetBook.Admission.Admitted a -> a.hold();
      case BudgetBook.Admission.Refused no -> {
        FullHttpResponse resp = Responses.error(429, no.message(), "insufficient_quota", "budget_exceeded",
            r.requestId(), r.keepAlive());
        resp.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(no.retryAfterSeconds()));
        resp.headers().set("x-tokenmeter-budget-reset", no.resetsAt().toString());
        refuse(r, "budget", resp, no.message());
        yield null;
      }
    };
  }

  /** Computes the dashboard's feed on the dashboard's thread, then answers on this event loop. */
  private void feed(long windowSeconds, boolean keepAlive) {
    awaitingFeed = true;
    try {
      ctx.dashboardExecutor.execute(() -> {
        FullHttpResponse r;
        try {
          r = DashboardRoutes.feed(ctx, windowSeconds);
        } catch (RuntimeException e) {
          r = Responses.error(500, "tokenmeter proxy: cannot compute the dashboard: " + e.getMessage(),
              "server_error", "dashboard", null, keepAlive);
        }
        FullHttpResponse answer = r;
        chc.channel().eventLoop().execute(() -> feedAnswered(answer, keepAlive));
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      awaitingFeed = false;
      respond(Responses.error(503, "tokenmeter proxy: the dashboard is busy (too many polls at once); poll less often",
          "server_error", "dashboard_busy", null, keepAlive), keepAlive);
    }
  }

  private void feedAnswered(FullHttpResponse r, boolean keepAlive) {
    awaitingFeed = false;
    if (chc.channel().isActive()) {
      respond(r, keepAlive);
      drain();
    } else {
      r.release();
    }
  }

  /** {@code /metrics}, behind the admin token when the proxy listens beyond loopback (it names tenants and models). */
  private FullHttpResponse metrics(FullHttpRequest req, boolean keepAlive) {
    if (ctx.gate.checkScrape(req.headers().get(HttpHeaderNames.AUTHORIZATION))
        instanceof dev.tokenmeter.proxy.dashboard.AdminGate.Verdict.Refused no) {
      FullHttpResponse r = Responses.error(401, no.message(), "invalid_request_error", "admin_token", null, keepAlive);
      r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"tokenmeter\"");
      return r;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    try {
      ctx.metricsOrNull.scrape(out);
    } catch (IOException e) {
      return Responses.error(500, "cannot render metrics: " + e.getMessage(), "server_error",
          "metrics", null, true);
    }
    FullHttpResponse r =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
            Unpooled.wrappedBuffer(out.toByteArray()));
    r.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, ctx.metricsOrNull.contentType())
        .setInt(HttpHeaderNames.CONTENT_LENGTH, out.size());
    return r;
  }

  private void respond(FullHttpResponse r, boolean keepAlive) {
    if (keepAlive) {
      chc.writeAndFlush(r);
    } else {
      chc.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
    }
  }

  /** {@code x} ended; {@code reusable}: whether the connection may carry the next request. */
  void exchangeEnded(ProxyExchange x, boolean reusable) {
    if (current != x) {
      return;
    }
    current = null;
    closeAdmission();
    if (!reusable) {
      if (!HttpUtil.isKeepAlive(x.request()) && chc.channel().isActive()) {
        chc.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      }
      return;
    }
    chc.channel().eventLoop().execute(this::drain); // not inside the upstream's read
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext c) {
    if (current != null) {
      current.resumeUpstream();
    }
    c.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext c) {
    ctx.connections.decrementAndGet();
    ProxyExchange x = current;
    current = null;
    if (x != null) {
      x.clientClosed();
    }
    closeAdmission();
    Pending p;
    while ((p = queued.poll()) != null) {
      if (p.request() != null) {
        p.request().release();
      }
    }
    c.fireChannelInactive();
  }

  /** Gives the slots back (the exchange ended), or leaves the queue (the client left while it waited). */
  private void closeAdmission() {
    if (admission == null) {
      return;
    }
    admission.close();
    admission = null;
    if (waitingHold != null) {
      waitingHold.settle(0, 0, 0); // never forwarded: nothing spent
      waitingHold = null;
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
    c.close(); // channelInactive cancels what is in flight
  }
}
