package dev.tokenmeter.simulator;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SingleThreadIoEventLoop;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.RejectedExecutionHandlers;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * An in-process OpenAI-compatible server (vLLM's wire format) whose token timing is exact and
 * known: the fixture of tokenmeter's integration tests and the target of {@code tokenmeter demo}.
 *
 * <p>Serves {@code POST /v1/chat/completions}, {@code POST /v1/completions} (streamed or not),
 * {@code GET /v1/models}, {@code GET /health} and {@code GET /metrics} (vLLM V1's names, {@link
 * VllmMetrics}) on 127.0.0.1 over HTTP/1.1 with keep-alive, on
 * {@link SimConfig#ioThreads()} event loops (native epoll where available, else NIO). Tokens are
 * emitted at the times the {@link TimingModel} gives, and every generation's intended and actual
 * emission times go to the {@link GroundTruthSink}, so a client's measurements can be checked
 * against what was really sent.
 *
 * <pre>{@code
 * List<EmissionRecord> truth = new CopyOnWriteArrayList<>();
 * try (SimServer server = SimServer.start(SimConfig.builder()
 *     .timing(TimingModel.fixed(50_000_000L, 20_000_000L))
 *     .groundTruthSink(truth::add)
 *     .build())) {
 *   // POST server.baseUrl() + "/v1/chat/completions" ...
 * }
 * }</pre>
 *
 * <p>Thread-safe: every method may be called from any thread.
 */
public final class SimServer implements AutoCloseable {

  /** How long {@link #close()} lets the event loops drain, at most. */
  private static final long SHUTDOWN_TIMEOUT_MILLIS = 2_000;

  /**
   * How long a loop runs due tasks (token writes) before it reads its sockets again: 1 ms (the
   * least Netty's constructor takes: it counts in milliseconds), checked every 64 tasks. With
   * Netty's default (1 s) a tick of 1,000 streams' token writes ran to its end before the requests
   * that arrived meanwhile were read, so their arrival stamps, where the TTFT truth starts, came
   * late by the rest of the tick.
   */
  static final long TASK_QUANTUM_MILLIS = 1;

  private final ServerState state;
  private final EventLoopGroup group;
  private final Channel serverChannel;
  private final int port;
  private final Histogram jitterTotal = new Histogram(3);

  private SimServer(ServerState state, EventLoopGroup group, Channel serverChannel) {
    this.state = state;
    this.group = group;
    this.serverChannel = serverChannel;
    this.port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  /**
   * Binds 127.0.0.1 on {@code config.port()} and starts serving; returns once bound.
   *
   * @throws RuntimeException when the port cannot be bound (Netty rethrows the bind error)
   */
  public static SimServer start(SimConfig config) {
    warmUp(config.promptCounter());
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    Class<? extends ServerChannel> channelClass =
        epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    EventLoopGroup group = loops(config.ioThreads(), io);
    ChannelGroup channels = new DefaultChannelGroup(group.next());
    ServerState state = new ServerState(config, channels);
    try {
      ServerBootstrap bootstrap =
          new ServerBootstrap()
              .group(group)
              .channel(channelClass)
              // 4,096 pending accepts: a load test opens 1,000+ connections at once.
              .option(ChannelOption.SO_BACKLOG, 4096)
              .option(ChannelOption.SO_REUSEADDR, true)
              // One token per segment, now: Nagle would batch paced tokens by up to 40 ms.
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      SimHandler handler = new SimHandler(state);
                      ch.pipeline()
                          .addLast(handler.new ArrivalStamp())
                          .addLast(new HttpServerCodec())
                          .addLast(new HttpObjectAggregator(config.maxRequestBytes()))
                          .addLast(handler);
                    }
                  });
      Channel server =
          bootstrap.bind(new InetSocketAddress("127.0.0.1", config.port())).syncUninterruptibly()
              .channel();
      channels.add(server);
      return new SimServer(state, group, server);
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw e;
    }
  }

  /** {@code threads} event loops over {@code io}, tasks bounded by {@link #TASK_QUANTUM_MILLIS}. */
  static MultiThreadIoEventLoopGroup loops(int threads, IoHandlerFactory io) {
    return new MultiThreadIoEventLoopGroup(threads, io) {
      @Override
      protected IoEventLoop newChild(Executor executor, IoHandlerFactory factory, Object... args) {
        return new SingleThreadIoEventLoop(
            this, executor, factory, Integer.MAX_VALUE, RejectedExecutionHandlers.reject(), TASK_QUANTUM_MILLIS);
      }
    };
  }

  /**
   * Loads and initializes what the first request would (Jackson's mapper, the vocabulary, the
   * frame encoder, the prompt counter's tokenizer): about 50 ms on a cold JVM that would otherwise
   * land on the first token.
   */
  private static void warmUp(PromptCounter counter) {
    try {
      RequestParser.parse(
          GenerationRequest.Api.CHAT,
          new java.io.ByteArrayInputStream(
              "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}"
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8)),
          counter);
    } catch (RequestParser.Rejected e) {
      throw new IllegalStateException(e);
    }
    io.netty.buffer.ByteBuf scratch = io.netty.buffer.Unpooled.buffer(1024);
    StreamFrames frames =
        new StreamFrames(GenerationRequest.Api.CHAT, "warm-up", 0, Bodies.quote("m"));
    frames.writeRoleChunk(scratch);
    frames.writeToken(scratch, Vocabulary.jsonBytes(0), "length");
    frames.writeUsage(scratch, 1, 1, 0);
    scratch.release();
    new LruPrefixCache(LruPrefixCache.BLOCK_TOKENS).lookupAndInsert(new int[40], 40); // the first token's lookup
    Bodies.error("warm-up", "BadRequestError", 400);
  }

  /** The bound port (the ephemeral one when the config asked for 0). */
  public int port() {
    return port;
  }

  /** {@code http://127.0.0.1:PORT}, without a trailing slash. */
  public String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  /** The configuration this server runs with. */
  public SimConfig config() {
    return state.config;
  }

  /** The counters so far (connections, requests, generations, tokens). */
  public SimStats stats() {
    return state.stats();
  }

  /**
   * The exact queue times (arrival to first scheduled) and prefill times (first scheduled to first
   * token) of every response that produced a token so far, nanoseconds: the truth behind the
   * bucketed {@code vllm:request_queue_time_seconds} and {@code vllm:request_prefill_time_seconds}
   * of {@code GET /metrics}. Copies.
   */
  public PhaseTruth phaseTruth() {
    return state.metrics.truth();
  }

  /**
   * Exact phase times of the responses so far, nanoseconds.
   *
   * @param queueNanos arrival to first scheduled, per response that produced a token
   * @param prefillNanos first scheduled to first token
   */
  public record PhaseTruth(Histogram queueNanos, Histogram prefillNanos) {}

  /**
   * Emission jitter of every streamed token so far (and of the body write of non-streamed
   * responses): actual − intended emission time, in nanoseconds, clamped at 0. A copy: later
   * tokens do not change it. Cumulative since start.
   */
  public synchronized Histogram jitterHistogram() {
    jitterTotal.add(state.jitterNanos.getIntervalHistogram());
    return jitterTotal.copy();
  }

  /**
   * Stops accepting, closes every connection (responses in flight end with {@link
   * EmissionRecord.Ending#SERVER_SHUTDOWN} records) and stops the event loops, waiting at most
   * about 2 s. Idempotent.
   */
  @Override
  public void close() {
    state.markClosing();
    serverChannel.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS);
    state.channels.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS);
    group
        .shutdownGracefully(0, SHUTDOWN_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
        .awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS + 500);
  }
}
