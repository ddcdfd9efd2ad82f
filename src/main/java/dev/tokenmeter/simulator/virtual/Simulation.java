package dev.tokenmeter.simulator.virtual;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.engine.RequestSink;
import dev.tokenmeter.core.engine.RequestSource;
import dev.tokenmeter.core.engine.StageRunner;
import dev.tokenmeter.core.engine.Timeouts;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.simulator.engine.EngineConfig;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The capacity planner: bench's {@link StageRunner}, unchanged, driving an {@link EngineEndpoint}
 * on a {@link VirtualLoop}. A stage of minutes of simulated load runs in the time its events take
 * to process; the results are the same {@link StageResult}s a real run records.
 *
 * <pre>{@code
 * Simulation sim = new Simulation(
 *     EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm")),
 *     new Timeouts(0, 0, 0), 256, (timeline, metrics) -> {}, null);
 * StageResult r = sim.runStage(plan, new SyntheticWorkload(input, output, plan.seed()));
 * }</pre>
 *
 * <pre>
 * design notes
 * - Virtual time starts at 0 and runs on across stages, as wall time does in bench; the engine and
 *   its KV cache carry over too (a stage cancels what it left in flight, which frees it).
 * - The client's self-watch reads 0 lag (a virtual task runs exactly when due) and no CPU
 *   (ClientCpu.UNKNOWN): there is no client to be the bottleneck, and no warning says so.
 * - Deterministic: the same plans, seeds and workload give the same events in the same order,
 *   hence identical results. Nothing reads the wall clock.
 * </pre>
 *
 * <p>Not thread-safe: run stages from one thread, one at a time.
 */
public final class Simulation {
  private final VirtualLoop loop = new VirtualLoop(0);
  private final EngineEndpoint endpoint;
  private final Timeouts timeouts;
  private final RequestSink sink;
  private final OutputTokenCounter counter;

  /**
   * @param config the deployment simulated
   * @param timeouts the client's deadlines, in virtual time (0 disables one)
   * @param defaultMaxTokens output length of requests that set no max_tokens
   * @param sink receives every finished request, as in bench (requests.jsonl)
   * @param counter counts output tokens without usage; null for chunks (never used: the endpoint
   *     always sends usage)
   * @throws IllegalArgumentException when the model does not fit on the GPUs
   */
  public Simulation(
      EngineConfig config,
      Timeouts timeouts,
      int defaultMaxTokens,
      RequestSink sink,
      OutputTokenCounter counter) {
    this(config, timeouts, defaultMaxTokens, sink, counter, 0);
  }

  /**
   * A simulation whose text-less prompts (synthetic lengths) all start with the same {@code
   * sharedPrefixTokens} tokens, for the prefix cache (see {@link EngineEndpoint}).
   */
  public Simulation(
      EngineConfig config,
      Timeouts timeouts,
      int defaultMaxTokens,
      RequestSink sink,
      OutputTokenCounter counter,
      int sharedPrefixTokens) {
    this.endpoint = new EngineEndpoint(config, loop, defaultMaxTokens, sharedPrefixTokens);
    this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.counter = counter;
  }

  /** The simulated endpoint (KV capacity, context length, engine counters). */
  public EngineEndpoint endpoint() {
    return endpoint;
  }

  /** Virtual now, nanoseconds since the simulation began. */
  public long nanos() {
    return loop.nanos();
  }

  /** Loop tasks run so far (a measure of the simulation's own work). */
  public long eventsProcessed() {
    return loop.executed();
  }

  /** Runs one stage to its end in virtual time and returns what it recorded. */
  public StageResult runStage(StagePlan plan, RequestSource source) {
    StageRunner runner = new StageRunner(endpoint, plan, source, timeouts, loop, sink, counter);
    CompletableFuture<Long> done = runner.start();
    if (!loop.runUntil(done::isDone)) {
      // Unreachable while StageRunner keeps its timers: it always has a tick pending until it stops.
      throw new IllegalStateException("stage " + plan.index() + " ran out of events before it ended");
    }
    return runner.recorder().finish(done.join(), ClientCpu.UNKNOWN);
  }
}
