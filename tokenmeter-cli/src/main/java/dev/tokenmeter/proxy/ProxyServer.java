package dev.tokenmeter.proxy;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.ledger.MeteredRequestSink;
import dev.tokenmeter.proxy.balance.Balance;
import dev.tokenmeter.proxy.balance.Balancer;
import dev.tokenmeter.proxy.dashboard.LiveBoard;
import dev.tokenmeter.proxy.dashboard.SloSource;
import dev.tokenmeter.telemetry.ProxyMetrics;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The metering reverse proxy: OpenAI-compatible traffic (and any other HTTP/1.1) passes through
 * unchanged, and every request is metered on a separate record path into {@link
 * dev.tokenmeter.ledger.MeteredRequest}s for the sinks. docs/PROXY.md says what is recorded, how,
 * and the guarantees.
 *
 * <pre>{@code
 * try (ProxyServer proxy = ProxyServer.start(ProxyConfig.of(0, Upstream.parse("default",
 *     "http://127.0.0.1:8000", null)), List.of(records::add), null, TokenCounters.none(),
 *     Ticker.system(), InstantSource.system())) {
 *   // clients use proxy.baseUrl() + "/v1" as their OpenAI base URL
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class ProxyServer implements AutoCloseable {
  /* Design notes.
   * - Each client connection's upstream connections are opened on the client's own event loop, so
   *   a request never crosses threads on the stream path, and idle upstream connections are
   *   pooled per loop without locks (the pattern of Netty's HexDumpProxy example, plus pooling).
   * - The stream path's only work per read: one ticker reading, one copy of the body bytes for the
   *   record path (a queue offer that never waits), one write and one flush to the client.
   */
  private static final long SHUTDOWN_TIMEOUT_MILLIS = 2_000;

  private final EventLoopGroup group;
  private final Channel serverChannel;
  private final ChannelGroup channels;
  private final RecordPath record;
  private final InetSocketAddress bound;
  private final ProxyContext ctx;

  private final ServerTls tlsOrNull;

  private ProxyServer(EventLoopGroup group, Channel serverChannel, ChannelGroup channels, RecordPath record,
      ProxyContext ctx, ServerTls tlsOrNull) {
    this.ctx = ctx;
    this.tlsOrNull = tlsOrNull;
    this.group = group;
    this.serverChannel = serverChannel;
    this.channels = channels;
    this.record = record;
    this.bound = (InetSocketAddress) serverChannel.localAddress();
  }

  /**
   * Binds {@code config.listen()} and starts proxying; returns once bound.
   *
   * @param sinks where finished records go (the ledger, tests); each must not block
   * @param metricsOrNull the live metrics, also served at {@code GET /metrics}; null for none
   * @param counters tokenizers for responses without usage
   * @throws CannotListen when the address cannot be bound (a port in use, say), in one line
   * @throws IllegalArgumentException when the listener's TLS files do not load, in one line
   */
  public static ProxyServer start(
      ProxyConfig config,
      List<MeteredRequestSink> sinks,
      ProxyMetrics metricsOrNull,
      TokenCounters counters,
      Ticker ticker,
      InstantSource clock) {
    return start(config, sinks, metricsOrNull, null, counters, ticker, clock);
  }

  /** The dashboard's SLO panel: the live SLOs among the record sinks, if any. */
  private static SloSource sloSource(List<MeteredRequestSink> sinks) {
    for (MeteredRequestSink sink : sinks) {
      if (sink instanceof dev.tokenmeter.governance.SloBook book) {
        return new dev.tokenmeter.proxy.dashboard.SloBookSource(book);
      }
    }
    return SloSource.NONE;
  }

  /**
   * As {@link #start(ProxyConfig, List, ProxyMetrics, TokenCounters, Ticker, InstantSource)}, with
   * the tenants' budgets: requests of a budgeted tenant are admitted or refused (429) by {@code
   * budgetsOrNull} and settle there when metered (docs/PROXY.md, "Budgets").
   */
  public static ProxyServer start(
      ProxyConfig config,
      List<MeteredRequestSink> sinks,
      ProxyMetrics metricsOrNull,
      BudgetBook budgetsOrNull,
      TokenCounters counters,
      Ticker ticker,
      InstantSource clock) {
    Objects.requireNonNull(ticker, "ticker");
    warmUp();
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    Class<? extends ServerChannel> serverClass =
        epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    Class<? extends Channel> clientClass = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(config.ioThreads(), io);
    ChannelGroup channels = new DefaultChannelGroup(group.next());
    List<MeteredRequestSink> all = new ArrayList<>(sinks);
    if (metricsOrNull != null) {
      all.add(metricsOrNull);
    }
    Balance balance = config.routing().balanceOrNull();
    Balancer balancer =
        balance == null ? null : Balancer.of(balance, config.routing().upstreams().keySet(), ticker);
    if (balancer != null) {
      all.add(balancer); // learns each upstream's TPS curve from the record path
    }
    java.util.concurrent.atomic.AtomicReference<ProxyContext> live = new java.util.concurrent.atomic.AtomicReference<>();
    LiveBoard board = new LiveBoard(new LiveBoard.Setup(List.copyOf(config.routing().upstreams().keySet()),
        name -> live.get() == null ? 0 : live.get().inFlight(name), config.budgets().budgets(), budgetsOrNull,
        balance == null ? Balance.DEFAULT_FLUID_TPS : balance.fluidTps(), sloSource(sinks), LiveBoard.DEFAULT_CAPACITY),
        clock);
    all.add(board); // the dashboard's figures, from the record path
    RecordPath record =
        new RecordPath(config.recordThreads(), config.recordQueueCapacity(), all, metricsOrNull,
            counters, config.prices());
    ProxyContext ctx =
        new ProxyContext(config, record, metricsOrNull, budgetsOrNull, ticker, clock, clientClass, channels, balancer, board);
    live.set(ctx);
    if (budgetsOrNull != null) {
      ContextProbe.start(config.routing().upstreams().values(), ctx.contexts);
    }
    ServerTls tls = null;
    try {
      tls = config.tlsOrNull() == null ? null : ServerTls.start(config.tlsOrNull(), System.err);
      ServerTls serverTls = tls;
      ServerBootstrap b =
          new ServerBootstrap()
              .group(group)
              .channel(serverClass)
              .option(ChannelOption.SO_BACKLOG, 4096)
              .option(ChannelOption.SO_REUSEADDR, true)
              // One event per segment, now: Nagle would hold a token back for up to 40 ms.
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      FrontHandler front = new FrontHandler(ctx);
                      if (serverTls != null) { // the context of this moment: a reload serves later connections
                        ch.pipeline().addLast(serverTls.context().newHandler(ch.alloc()));
                      }
                      ch.pipeline()
                          .addLast(new IdleStateHandler(0, 0, config.admission().idleTimeoutNanos(), TimeUnit.NANOSECONDS))
                          .addLast(new HttpServerCodec())
                          .addLast(front.headerStamp())
                          .addLast(new BodyLimit(config.maxRequestBytes(), front))
                          .addLast(front);
                    }
                  });
      Channel server;
      try {
        server = b.bind(config.listen()).syncUninterruptibly().channel();
      } catch (Exception e) { // Netty rethrows its bind failure (an IOException) undeclared
        throw new CannotListen(config.listen(), e);
      }
      channels.add(server);
      return new ProxyServer(group, server, channels, record, ctx, tls);
    } catch (RuntimeException e) {
      if (tls != null) {
        tls.close();
      }
      ctx.dashboardExecutor.shutdownNow();
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      record.close();
      throw e;
    }
  }

  /**
   * The listen address cannot be bound. Its message is one line naming the address, the reason in
   * words and the fix, e.g. {@code cannot listen on 127.0.0.1:8080: the port is already in use
   * (another process, or another proxy, listens there); stop it, or pick another port with --listen
   * HOST:PORT (port 0: any free one)}.
   */
  public static final class CannotListen extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CannotListen(InetSocketAddress address, Exception cause) {
      super("cannot listen on " + hostPort(address) + ": " + reason(cause), cause);
    }

    private static String hostPort(InetSocketAddress a) {
      String host = a.getHostString();
      return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    /** Netty's epoll says "bind(..) failed with error(-98): Address already in use", NIO a BindException. */
    private static String reason(Exception e) {
      String m = String.valueOf(e.getMessage());
      if (m.contains("Address already in use")) {
        return "the port is already in use (another process, or another proxy, listens there); stop it, or pick"
            + " another port with --listen HOST:PORT (port 0: any free one)";
      }
      if (m.contains("Permission denied")) {
        return "permission denied (ports below 1024 need privileges); pick a port from 1024 up with --listen HOST:PORT";
      }
      if (m.contains("Cannot assign requested address")) {
        return "the address is not one of this machine's; pick one of its addresses (or 0.0.0.0) with --listen HOST:PORT";
      }
      String line = ProxySettings.firstLine(m).replaceFirst("^bind\\(\\.\\.\\) failed with error\\(-?\\d+\\): ", "");
      return line + "; pick another address with --listen HOST:PORT";
    }
  }

  /**
   * Loads and initializes what the first request would (Jackson's mappers, the filter's parser,
   * the error body writer): tens of milliseconds on a cold JVM that would otherwise land on the
   * first request's time to first token.
   */
  private static void warmUp() {
    RequestBody b =
        RequestBody.parse(
            "{\"model\":\"m\",\"stream\":true,\"messages\":[]}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    b.withUsage();
    UsageChunkFilter f = new UsageChunkFilter();
    io.netty.buffer.ByteBuf in =
        io.netty.buffer.Unpooled.copiedBuffer(
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1}}\n\n", java.nio.charset.StandardCharsets.UTF_8);
    f.forward(in, io.netty.buffer.ByteBuf::release);
    in.release();
    Responses.errorBody("warm-up", "warm-up", "warm-up");
  }

  /** The bound port (the ephemeral one when the config asked for 0). */
  public int port() {
    return bound.getPort();
  }

  /** {@code http://HOST:PORT} of the listener ({@code https://} with TLS), without a trailing slash. */
  public String baseUrl() {
    String host = bound.getAddress().getHostAddress();
    return (tlsOrNull == null ? "http://" : "https://") + (host.contains(":") ? "[" + host + "]" : host) + ":" + port();
  }

  /** Times the listener's TLS files were reloaded after a change; 0 without TLS. */
  public long tlsReloads() {
    return tlsOrNull == null ? 0 : tlsOrNull.reloads();
  }

  /** The live dashboard's figures (served at {@code /dashboard}). */
  public LiveBoard board() {
    return ctx.board;
  }

  /** Requests whose record was dropped because a record queue was full. */
  public long droppedRecords() {
    return record.droppedRecords();
  }

  /** Requests the proxy refused itself so far, by reason (auth, tenant, budget, upstream, invalid, overload, too_large). */
  public java.util.Map<String, Long> refusals() {
    java.util.Map<String, Long> m = new java.util.TreeMap<>();
    ctx.refusals.forEach((reason, n) -> m.put(reason, n.sum()));
    return m;
  }

  /** Client connections open now. */
  public int openConnections() {
    return ctx.connections.get();
  }

  /** Client connections answered 503 and closed as they opened, the connection limit reached. */
  public long refusedConnections() {
    return ctx.refusedConnections.sum();
  }

  /** Records handed to the sinks so far. */
  public long recorded() {
    return record.recorded();
  }

  /**
   * Stops accepting, closes every connection (requests in flight are recorded as cancelled or
   * truncated), stops the event loops, then drains the record path; about 4 s at most. Idempotent.
   */
  @Override
  public void close() {
    serverChannel.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS);
    channels.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS);
    group
        .shutdownGracefully(0, SHUTDOWN_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
        .awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS + 500);
    record.close();
    ctx.dashboardExecutor.shutdownNow();
    if (tlsOrNull != null) {
      tlsOrNull.close();
    }
  }
}
