package dev.tokenmeter.simulator;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.ArrayDeque;

/**
 * One connection: routes each request, runs at most one {@link Generation} at a time and queues
 * pipelined requests behind it (HTTP/1.1 answers in order). Confined to the connection's event
 * loop. Also stamps arrival: the ticker is read on every inbound read, before HTTP decoding, so a
 * request's arrival is the read that delivered its last byte.
 */
final class SimHandler extends ChannelInboundHandlerAdapter {

  /** Sits before the HTTP codec and stamps each raw read. */
  final class ArrivalStamp extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      lastReadNanos = state.ticker.nanos();
      ctx.fireChannelRead(msg);
    }
  }

  private record Pending(FullHttpRequest request, long arrivalNanos) {}

  private final ServerState state;
  private final ArrayDeque<Pending> queued = new ArrayDeque<>();
  private ChannelHandlerContext ctx;
  private long lastReadNanos;
  private Generation active;
  private boolean keepAlive = true;
  private String clientRequestId;
  /** The request being handled as a {@link Script} sees it; null without a script. */
  private Script.Incoming incoming;
  /** The API of the request being answered, for the shape of its error bodies. */
  private GenerationRequest.Api api = GenerationRequest.Api.CHAT;

  SimHandler(ServerState state) {
    this.state = state;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    state.connectionsOpened.increment();
    state.channels.add(ctx.channel());
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest request)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (active != null) {
      queued.add(new Pending(request, lastReadNanos));
      return;
    }
    handle(request, lastReadNanos);
  }

  private void handle(FullHttpRequest request, long arrivalNanos) {
    try {
      state.requests.increment();
      keepAlive = HttpUtil.isKeepAlive(request);
      clientRequestId = request.headers().get("x-request-id");
      if (request.decoderResult().isFailure()) {
        keepAlive = false;
        sendJson(HttpResponseStatus.BAD_REQUEST, error(400, "Malformed HTTP request"));
        return;
      }
      String path = new QueryStringDecoder(request.uri()).path();
      HttpMethod method = request.method();
      incoming = state.config.script() == null ? null
          : new Script.Incoming(api, path, request.content().toString(java.nio.charset.StandardCharsets.UTF_8));
      switch (path) {
        case "/health" -> {
          if (method.equals(HttpMethod.GET)) {
            sendJson(HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER);
          } else {
            methodNotAllowed();
          }
        }
        case "/metrics" -> {
          if (method.equals(HttpMethod.GET)) {
            sendMetrics();
          } else {
            methodNotAllowed();
          }
        }
        case "/v1/models" -> {
          if (method.equals(HttpMethod.GET)) {
            long created = state.config.wallClock().instant().getEpochSecond();
            sendJson(
                HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(
                    Bodies.models(
                        state.config.servedModelName(),
                        created,
                        state.config.maxModelLen(),
                        "modelperm-" + Ids.hex(state.config.seed(), 0))));
          } else {
            methodNotAllowed();
          }
        }
        case "/v1/chat/completions", "/v1/completions" -> {
          if (method.equals(HttpMethod.POST)) {
            generate(request, path.equals("/v1/completions"), arrivalNanos);
          } else {
            methodNotAllowed();
          }
        }
        default -> {
          if (!ApiRoutes.handle(this, state, request, arrivalNanos)) {
            sendJson(
                HttpResponseStatus.NOT_FOUND, Unpooled.wrappedBuffer(Bodies.detail("Not Found")));
          }
        }
      }
    } finally {
      request.release();
    }
  }

  private void generate(FullHttpRequest request, boolean completions, long arrivalNanos) {
    GenerationRequest.Api api =
        completions ? GenerationRequest.Api.COMPLETIONS : GenerationRequest.Api.CHAT;
    generate(api, () -> RequestParser.parse(api, new ByteBufInputStream(request.content()),
        state.config.promptCounter()), arrivalNanos);
  }

  /** Plans and starts the generation of a request of {@code api}; a rejection is answered in its error shape. */
  void generate(GenerationRequest.Api api, ApiRoutes.Parse parse, long arrivalNanos) {
    this.api = api;
    Script script = state.config.script();
    Script.Incoming seen = incoming == null ? null : new Script.Incoming(api, incoming.path(), incoming.body());
    RequestParser.Parsed parsed;
    Generation.Plan plan;
    Scripted scripted = null;
    try {
      parsed = parse.get();
      scripted = script == null ? null : script.answer(seen);
      if (scripted != null && !scripted.servableOn(api)) {
        throw new RequestParser.Rejected(500, "InternalServerError", "tokenmeter: the scripted answer " + scripted
            + " cannot be sent on the " + api + " API (tool calls: OpenAI chat and Responses, Anthropic, Gemini)");
      }
      if (scripted instanceof Scripted.HttpError e) {
        sendScriptedError(e);
        script.served(new Script.Served(seen, e.status(), parsed.promptTokens(), 0, true));
        return;
      }
      plan = Planner.plan(state, parsed, arrivalNanos, clientRequestId, scripted);
    } catch (RequestParser.Rejected e) {
      sendJson(
          HttpResponseStatus.valueOf(e.status),
          Unpooled.wrappedBuffer(ApiRoutes.error(api, e.status, e.getMessage(), e.type)));
      if (script != null) {
        script.served(new Script.Served(seen, e.status, 0, 0, scripted != null));
      }
      return;
    }
    if (script != null) {
      script.served(new Script.Served(seen, 200, plan.request().promptTokens(), plan.request().outputTokens(),
          scripted != null));
    }
    state.generations.increment();
    active = new Generation(state, ctx, this, plan);
    active.start();
  }

  /** Called by the active generation when its response ended. */
  void generationEnded(Generation generation, EmissionRecord.Ending ending) {
    if (generation != active) {
      return;
    }
    active = null;
    boolean connectionGone =
        ending == EmissionRecord.Ending.SERVER_DISCONNECT
            || ending == EmissionRecord.Ending.CLIENT_DISCONNECT
            || ending == EmissionRecord.Ending.SERVER_SHUTDOWN;
    if (connectionGone) {
      return;
    }
    if (!keepAlive) {
      ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    Pending next = queued.poll();
    if (next != null) {
      handle(next.request(), next.arrivalNanos());
    }
  }

  /** Writes a full response (JSON or empty), closing afterwards unless kept alive. */
  void sendJson(HttpResponseStatus status, ByteBuf body) {
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    if (body.isReadable()) {
      response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    }
    HttpUtil.setContentLength(response, body.readableBytes());
    decorate(response);
    if (keepAlive) {
      ctx.writeAndFlush(response);
    } else {
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }

  /** {@code GET /metrics}: the server's metrics in Prometheus text format, vLLM's names. */
  private void sendMetrics() {
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
        Unpooled.wrappedBuffer(state.metrics.scrape()));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, state.metrics.contentType());
    HttpUtil.setContentLength(response, response.content().readableBytes());
    if (keepAlive) {
      ctx.writeAndFlush(response);
    } else {
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }

  /** The response of an injected 429 / 500 / 503. */
  void sendInjectedError(Fault fault) {
    int code =
        switch (fault) {
          case HTTP_429 -> 429;
          case HTTP_503 -> 503;
          default -> 500;
        };
    String type =
        switch (code) {
          case 429 -> "RateLimitError";
          case 503 -> "ServiceUnavailableError";
          default -> "InternalServerError";
        };
    sendJson(
        HttpResponseStatus.valueOf(code),
        Unpooled.wrappedBuffer(
            ApiRoutes.error(api, code, "Simulated HTTP " + code + " (tokenmeter fault injection)", type)));
  }

  /** A scripted HTTP error in the API's error shape, with its {@code Retry-After}. */
  private void sendScriptedError(Scripted.HttpError e) {
    ByteBuf body = Unpooled.wrappedBuffer(ApiRoutes.error(api, e.status(), e.message(), e.type()));
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(e.status()), body);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    if (e.retryAfterSeconds() >= 0) {
      response.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(e.retryAfterSeconds()));
    }
    HttpUtil.setContentLength(response, body.readableBytes());
    decorate(response);
    if (keepAlive) {
      ctx.writeAndFlush(response);
    } else {
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }

  /** Headers every response carries: the echoed request id, and close when not kept alive. */
  void decorate(HttpResponse response) {
    if (clientRequestId != null) {
      response.headers().set("x-request-id", clientRequestId);
    }
    if (!keepAlive) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
  }

  private void methodNotAllowed() {
    sendJson(
        HttpResponseStatus.METHOD_NOT_ALLOWED,
        Unpooled.wrappedBuffer(Bodies.detail("Method Not Allowed")));
  }

  private static ByteBuf error(int code, String message) {
    return Unpooled.wrappedBuffer(Bodies.error(message, "BadRequestError", code));
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (active != null) {
      active.writabilityChanged();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (active != null) {
      active.abort(
          state.closing()
              ? EmissionRecord.Ending.SERVER_SHUTDOWN
              : EmissionRecord.Ending.CLIENT_DISCONNECT);
    }
    for (Pending p : queued) {
      p.request().release();
    }
    queued.clear();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A reset by the client or a decoding failure: nothing to answer, the connection is done.
    ctx.close();
  }
}
