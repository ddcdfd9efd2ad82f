package dev.tokenmeter.testkit;

import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.client.SpreadEndpoint;
import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.loadgen.RequestSink;
import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.loadgen.StageRunner;
import dev.tokenmeter.core.loadgen.Timeouts;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.time.Ticker;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongToIntFunction;

/**
 * Runs one {@link StageRunner} stage over a real {@link SpreadEndpoint}, wired as {@code BenchRun}
 * wires it (system ticker, no tokenizer), with a sink that keeps every finished request.
 *
 * <pre>{@code
 * StageRun run = StageKit.run(StageKit.stage(sim).closed(10).requests(20).maxTokens(30));
 * }</pre>
 *
 * <p>Each run gets its own endpoint (its own event loop, connection pool and X-Request-Id run
 * token), closed when the stage ends, so stages never share connections or request ids. Defaults:
 * chat API, streamed with usage, {@code {"ignore_eos":true}} (exactly {@code max_tokens} tokens),
 * 30 tokens, closed loop c=1, 1 measured request, no warm-up or cool-down, timeouts of 10 s (first
 * token, idle) and 30 s (total), a stage bounded at 30 s, one event loop.
 */
public final class StageKit {
  private static final long MS = 1_000_000L;

  private static final AtomicBoolean WARM = new AtomicBoolean();

  private StageKit() {}

  /**
   * Runs 200 zero-delay requests of 30 tokens once per JVM, so the client's and the server's read
   * paths are compiled before a test measures microseconds: in the first second of a JVM the JIT
   * compiler threads compete with both event loops for this machine's 2 cores, and the first
   * measured requests came out 1-5 ms late. About 1-2 s, once.
   */
  public static void warmUpOnce() {
    if (WARM.compareAndSet(false, true)) {
      try (SimFixture sim = SimFixture.start(SimFixture.config(0, 0))) {
        run(stage(sim).closed(4).requests(200).maxTokens(30));
      }
    }
  }

  /** A stage against {@code sim}, at the defaults. */
  public static Spec stage(SimFixture sim) {
    return new Spec(URI.create(sim.baseUrl()));
  }

  /** A stage against {@code baseUrl} (a closed port, another server), at the defaults. */
  public static Spec stage(String baseUrl) {
    return new Spec(URI.create(baseUrl));
  }

  /** What one stage sends, how, and for how long. Fluent; not thread-safe. */
  public static final class Spec {
    private final URI baseUrl;
    private Api api = Api.CHAT;
    private boolean stream = true;
    private String extraBody = "{\"ignore_eos\":true}";
    private LoadModel load = new LoadModel.Closed(1, 0);
    private StopCondition stop = new StopCondition.Requests(1);
    private long warmupNanos;
    private long cooldownNanos;
    private long seed = 1;
    private LongToIntFunction maxTokens = id -> 30;
    private Timeouts timeouts = new Timeouts(10_000 * MS, 10_000 * MS, 30_000 * MS);
    private long stageLimitMillis = 30_000;
    private RequestSink alsoTo = (t, m) -> {};
    private int eventLoops = 1;
    private RequestSource source;

    private Spec(URI baseUrl) {
      this.baseUrl = baseUrl;
    }

    /** The client reads its sockets with {@code n} event loops ({@code bench --event-loops}). */
    public Spec eventLoops(int n) {
      this.eventLoops = n;
      return this;
    }

    /** Every finished request is also handed to {@code sink} (a {@code requests.jsonl} writer). */
    public Spec alsoTo(RequestSink sink) {
      this.alsoTo = sink;
      return this;
    }

    public Spec api(Api api) {
      this.api = api;
      return this;
    }

    public Spec stream(boolean stream) {
      this.stream = stream;
      return this;
    }

    /** The {@code --extra-body} JSON, null for none. */
    public Spec extraBody(String json) {
      this.extraBody = json;
      return this;
    }

    /** Closed loop: {@code users} virtual users, no think time. */
    public Spec closed(int users) {
      this.load = new LoadModel.Closed(users, 0);
      return this;
    }

    /** Open loop, constant spacing, at most {@code maxConcurrency} in flight (0: no cap). */
    public Spec openConstant(double ratePerSecond, int maxConcurrency) {
      this.load =
          new LoadModel.Open(
              ratePerSecond,
              new Arrivals.Constant(),
              maxConcurrency > 0 ? OptionalInt.of(maxConcurrency) : OptionalInt.empty());
      return this;
    }

    /** The window holds exactly {@code count} requests. */
    public Spec requests(long count) {
      this.stop = new StopCondition.Requests(count);
      return this;
    }

    /** The window lasts {@code millis}. */
    public Spec durationMillis(long millis) {
      this.stop = new StopCondition.Duration(millis * MS);
      return this;
    }

    public Spec warmupMillis(long millis) {
      this.warmupNanos = millis * MS;
      return this;
    }

    public Spec cooldownMillis(long millis) {
      this.cooldownNanos = millis * MS;
      return this;
    }

    public Spec seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** {@code max_tokens} of every request. */
    public Spec maxTokens(int tokens) {
      this.maxTokens = id -> tokens;
      return this;
    }

    /** {@code max_tokens} of request {@code id} (ids count from 0 in the stage). */
    public Spec maxTokensById(LongToIntFunction tokens) {
      this.maxTokens = tokens;
      return this;
    }

    /** Client deadlines in milliseconds, 0 = off. */
    public Spec timeoutsMillis(long firstToken, long idle, long total) {
      this.timeouts = new Timeouts(firstToken * MS, idle * MS, total * MS);
      return this;
    }

    /** The stage fails the test when it has not ended after this long. */
    public Spec stageLimitMillis(long millis) {
      this.stageLimitMillis = millis;
      return this;
    }

    public Timeouts timeouts() {
      return timeouts;
    }

    public EndpointConfig endpointConfig() {
      return new EndpointConfig(
          baseUrl, api, "tokenmeter-sim", null, Map.of(), extraBody, stream, true, 2_000);
    }

    public StagePlan plan() {
      return new StagePlan(0, load, stop, warmupNanos, cooldownNanos, seed);
    }

    /** The requests to send (a {@code SessionSource} runs sessions), instead of one fixed prompt. */
    public Spec source(RequestSource requests) {
      this.source = requests;
      return this;
    }

    /** The source set by {@link #source(RequestSource)}, else every request the same short prompt, with its {@code max_tokens}. */
    public RequestSource source() {
      if (source != null) {
        return source;
      }
      LongToIntFunction max = maxTokens;
      return id ->
          new RequestSpec(
              id,
              new Prompt.Text("Count the tokens of this prompt."),
              -1,
              false,
              OptionalInt.of(max.applyAsInt(id)));
    }
  }

  /** Runs {@code spec}'s stage to its end and returns what was measured. */
  public static StageRun run(Spec spec) {
    Ticker ticker = Ticker.system();
    ConcurrentLinkedQueue<StageRun.Finished> finished = new ConcurrentLinkedQueue<>();
    try (SpreadEndpoint endpoint = SpreadEndpoint.open(spec.endpointConfig(), ticker, spec.eventLoops)) {
      StageRunner runner =
          new StageRunner(
              endpoint,
              spec.plan(),
              spec.source(),
              spec.timeouts,
              ticker,
              (t, m) -> {
                finished.add(new StageRun.Finished(t, m, endpoint.requestIdHeader(t.id())));
                spec.alsoTo.accept(t, m);
              },
              /* counter= */ null);
      CompletableFuture<Long> done = runner.start();
      long endNanos;
      try {
        endNanos = done.get(spec.stageLimitMillis, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        runner.interrupt("test stage limit");
        throw new AssertionError("stage did not end within " + spec.stageLimitMillis + " ms", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      } catch (ExecutionException e) {
        throw new AssertionError("stage failed", e.getCause());
      }
      StageResult result = runner.recorder().finish(endNanos, ClientCpu.UNKNOWN);
      List<Long> started = java.util.Arrays.stream(endpoint.startedPerLoop()).boxed().toList();
      return new StageRun(result, new ArrayList<>(finished), endpoint.connectionsOpened(), started);
    }
  }
}
