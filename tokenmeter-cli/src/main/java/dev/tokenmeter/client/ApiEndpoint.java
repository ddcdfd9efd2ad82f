package dev.tokenmeter.client;

import dev.tokenmeter.core.Version;
import dev.tokenmeter.core.loadgen.Endpoint;
import dev.tokenmeter.core.loadgen.Exchange;
import dev.tokenmeter.core.loadgen.ExchangeListener;
import dev.tokenmeter.core.loadgen.Loop;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.time.Ticker;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The endpoint of every {@link Api} over Netty: the
 * API decides the request's path, auth header and body and decodes the stream ({@link
 * StreamDecoder}); the rest is common: one event loop thread reads every
 * stream; HTTP/1.1 keep-alive connections are pooled (most recently used first) and reused; a
 * request is never re-sent once any of it reached the server.
 *
 * <p>Timing: a handler at the head of each pipeline stamps every socket read with the ticker
 * before any decoding, and every item parsed from that read carries that stamp. {@code sent} is
 * taken when the write of the request's last byte completes; connection set-up is reported apart
 * through {@code connected}.
 */
public final class ApiEndpoint implements Endpoint {
  /**
   * The {@code anthropic-version} header sent with every Anthropic request (the current version of
   * the Messages API, docs.anthropic.com "Versions"); {@code --header} can replace it.
   */
  static final String ANTHROPIC_VERSION = "2023-06-01";

  private final EndpointConfig config;
  private final Ticker ticker;
  private final EventLoopGroup group;
  private final EventLoop eventLoop;
  private final NettyLoop loop;
  private final Bootstrap bootstrap;
  private final InetSocketAddress address;
  private final String hostHeader;
  private final String path;
  private final RequestBodyEncoder encoder;
  private final ChunkParser parser = new ChunkParser();
  // Every exchange copies each read into this array and hands it on before it returns (the framers
  // keep no reference): one per event loop, not 2 KiB per request that lives as long as the request.
  private byte[] readScratch = new byte[2048];
  private final ReadBatchProbe readBatches = new ReadBatchProbe();
  private final HeldReads heldReads = new HeldReads();
  private final KeepAlivePool pool = new KeepAlivePool();
  private final String runToken;
  private long connectionsOpened;
  private final boolean tls;

  private ApiEndpoint(EndpointConfig config, Ticker ticker, String runToken, String threadName) {
    this.config = config;
    this.ticker = ticker;
    this.runToken = runToken;
    this.encoder = new RequestBodyEncoder(config);
    URI url = config.baseUrl();
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(java.util.Locale.ROOT);
    boolean tls = scheme.equals("https");
    if (!tls && !scheme.equals("http")) {
      throw new IllegalArgumentException(
          "--url must start with http:// or https://, got '" + url + "'");
    }
    if (url.getHost() == null) {
      throw new IllegalArgumentException("--url has no host: '" + url + "'");
    }
    int port = url.getPort() > 0 ? url.getPort() : (tls ? 443 : 80);
    this.address = new InetSocketAddress(url.getHost(), port);
    if (address.isUnresolved()) {
      throw new IllegalArgumentException("cannot resolve host '" + url.getHost() + "' of --url");
    }
    this.hostHeader = url.getPort() > 0 ? url.getHost() + ":" + port : url.getHost();
    this.path = config.requestPath();
    SslContext ssl = tls ? config.tls().nettyContext() : null;
    this.tls = tls;

    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory io =
        ReadBatchProbe.wrap(epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory(), readBatches, heldReads);
    this.group = NettyLoop.group(io, r -> newThread(r, threadName));
    this.eventLoop = group.next();
    this.loop = new NettyLoop(eventLoop);
    this.bootstrap =
        new Bootstrap()
            .group(eventLoop)
            .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, config.connectTimeoutMillis())
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ConnectionHandler handler = new ConnectionHandler(ApiEndpoint.this, ticker, readBatches, heldReads);
                    ch.pipeline().addLast("stamp", handler.stamp());
                    if (ssl != null) {
                      SslHandler tlsHandler = ssl.newHandler(ch.alloc(), url.getHost(), port);
                      tlsHandler.setHandshakeTimeoutMillis(config.connectTimeoutMillis());
                      ch.pipeline().addLast("tls", tlsHandler);
                    }
                    ch.pipeline().addLast("http", new HttpClientCodec());
                    ch.pipeline().addLast("exchange", handler);
                  }
                });
  }

  /** Creates an endpoint with its own single-thread event loop. */
  public static ApiEndpoint create(EndpointConfig config, Ticker ticker) {
    return new ApiEndpoint(config, ticker, newRunToken(), "tokenmeter-client");
  }

  /**
   * One of the endpoints of a {@link SpreadEndpoint}: its loop's thread named {@code threadName},
   * its {@code X-Request-Id}s made with the spread's {@code runToken}.
   */
  static ApiEndpoint create(EndpointConfig config, Ticker ticker, String runToken, String threadName) {
    return new ApiEndpoint(config, ticker, runToken, threadName);
  }

  /** A random token for one endpoint's {@code X-Request-Id}s ({@link #requestIdHeader}). */
  static String newRunToken() {
    return HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
  }

  /**
   * A {@link FastThreadLocalThread}, as Netty's own thread factory makes: Netty's buffer allocator
   * gives such a thread its own magazines, while a plain thread shares striped ones and, when they
   * are busy, allocates a fresh direct chunk per read (a zero-delay profile found 2.6% of the
   * loop's user time there, docs/PERFORMANCE.md, "Client against wrk").
   */
  private static Thread newThread(Runnable r, String name) {
    Thread t = new FastThreadLocalThread(r, name);
    t.setDaemon(true);
    return t;
  }

  @Override
  public Loop loop() {
    return loop;
  }

  /** Connections opened so far (a measure of keep-alive reuse). Read on the loop. */
  public long connectionsOpened() {
    return connectionsOpened;
  }

  @Override
  public Exchange start(RequestSpec spec, ExchangeListener listener) {
    ClientExchange x = new ClientExchange(this, spec, listener);
    Channel ch = pool.poll();
    if (ch != null) {
      x.begin(ch, /* reused= */ true);
    } else {
      // No idle connection right now: look again after the current read is handled, before
      // opening one. A closed loop starts its next request from inside the read that carried
      // [DONE], while that connection still waits for the chunked terminator of the same read,
      // which pools it a moment later. Without this turn of the loop that request opened a new
      // connection and the pool kept a spare: c=4 over 20 requests opened 5 connections, c=1 two.
      eventLoop.execute(() -> startLater(x));
    }
    return x;
  }

  private void startLater(ClientExchange x) {
    if (x.isEnded()) {
      return; // aborted while waiting for the loop
    }
    Channel ch = pool.poll();
    if (ch != null) {
      x.begin(ch, /* reused= */ true);
    } else {
      connect(x);
    }
  }

  void connect(ClientExchange x) {
    long startNanos = ticker.nanos();
    connectionsOpened++;
    bootstrap
        .connect(address)
        .addListener(
            f -> {
              Channel ch = ((io.netty.channel.ChannelFuture) f).channel();
              if (x.isEnded()) {
                if (f.isSuccess()) {
                  ch.close();
                }
                return;
              }
              if (!f.isSuccess()) {
                x.end(new Outcome.ConnectFailed(connectFailure("cannot connect to", f.cause())), ticker.nanos());
                return;
              }
              pool.opened(ch);
              if (tls) {
                // The TLS handshake belongs to the connection, not to the first request: without
                // this wait SslHandler holds the request until the handshake ends and the
                // handshake's round trips land in that request's TTFT.
                ch.pipeline().get(SslHandler.class).handshakeFuture().addListener(h -> handshaken(x, ch, h, startNanos));
              } else {
                x.listener().connected(startNanos, ticker.nanos());
                x.begin(ch, /* reused= */ false);
              }
            });
  }

  private void handshaken(ClientExchange x, Channel ch, io.netty.util.concurrent.Future<?> h, long startNanos) {
    if (x.isEnded()) {
      ch.close();
      return;
    }
    if (h.isSuccess()) {
      x.listener().connected(startNanos, ticker.nanos());
      x.begin(ch, /* reused= */ false);
    } else {
      ch.close();
      x.end(new Outcome.ConnectFailed(connectFailure("TLS handshake failed with", h.cause())
          + (config.tls().insecure() ? "" : TLS_HINT)), ticker.nanos());
    }
  }

  /** What a user should try when a certificate is refused. */
  static final String TLS_HINT =
      " (if the server's certificate is self-signed or from a private CA, give the CA with --ca-cert FILE,"
          + " or --insecure to skip the check)";

  private String connectFailure(String what, Throwable cause) {
    String reason = cause == null ? "unknown error" : cause.getMessage();
    return what + " " + address.getHostString() + ":" + address.getPort() + ": " + reason;
  }

  /**
   * A response ended cleanly on {@code ch}: back to the pool when the server keeps it alive
   * ({@code keepAlive}) and it was not retired by {@link #closeIdleConnections()}, else closed.
   * Loop only.
   */
  void release(Channel ch, boolean keepAlive) {
    pool.release(ch, keepAlive);
  }

  /**
   * Closes every pooled keep-alive connection and retires those still carrying a request (they
   * close when it ends), so that requests started after this open new connections: a repeat of a
   * stage then begins as a fresh client would, paying connects again. Any thread; the future
   * completes on the loop once the idle connections are closed, with how many there were.
   */
  public CompletableFuture<Integer> closeIdleConnections() {
    CompletableFuture<Integer> done = new CompletableFuture<>();
    eventLoop.execute(
        () -> {
          List<ChannelFuture> closing = pool.retire();
          int[] left = {closing.size()};
          if (left[0] == 0) {
            done.complete(0);
          }
          for (ChannelFuture f : closing) {
            f.addListener(
                x -> {
                  if (--left[0] == 0) {
                    done.complete(closing.size());
                  }
                });
          }
        });
    return done;
  }

  /**
   * The {@code X-Request-Id} this endpoint sends for request {@code requestId}: {@code
   * tm-<run token>-<id>}, the run token being random per endpoint. A server that logs the header
   * (the simulator's {@code EmissionRecord.clientRequestId()}) can be joined to the client's
   * timelines with it. Ids restart at 0 in every stage, so within one endpoint the header is unique
   * per stage, not per run. Any thread.
   */
  public String requestIdHeader(long requestId) {
    return "tm-" + runToken + "-" + requestId;
  }

  FullHttpRequest newRequest(RequestSpec spec) {
    byte[] body = encoder.encode(spec);
    FullHttpRequest req =
        new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1, HttpMethod.POST, path, Unpooled.wrappedBuffer(body));
    var h = req.headers();
    h.set(HttpHeaderNames.HOST, hostHeader);
    h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    h.set(HttpHeaderNames.CONTENT_LENGTH, body.length);
    h.set(HttpHeaderNames.ACCEPT, !config.stream() ? "application/json"
        : config.api().lineDelimited() ? "application/x-ndjson" : "text/event-stream");
    h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    h.set(HttpHeaderNames.USER_AGENT, "tokenmeter/" + Version.VERSION);
    h.set("X-Request-Id", requestIdHeader(spec.id()));
    if (config.api() == Api.ANTHROPIC) {
      h.set("anthropic-version", ANTHROPIC_VERSION);
    }
    if (config.apiKey() != null && !config.apiKey().isEmpty()) {
      switch (config.api()) {
        case ANTHROPIC -> h.set("x-api-key", config.apiKey());
        case GEMINI -> h.set("x-goog-api-key", config.apiKey());
        default -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + config.apiKey());
      }
    }
    for (Map.Entry<String, String> e : config.headers().entrySet()) {
      h.set(e.getKey(), e.getValue());
    }
    return req;
  }

  long tickerNanos() {
    return ticker.nanos();
  }

  /** The loop's read buffer, at least {@code n} bytes; valid until the caller returns. Loop thread only. */
  byte[] readScratch(int n) {
    if (readScratch.length < n) {
      readScratch = new byte[Math.max(n, readScratch.length * 2)];
    }
    return readScratch;
  }

  /** A decoder for one response stream (the OpenAI parser is shared by every stream on the loop). */
  StreamDecoder decoder() {
    return StreamDecoder.of(config.api(), parser);
  }

  Api api() {
    return config.api();
  }

  boolean streaming() {
    return config.stream();
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
