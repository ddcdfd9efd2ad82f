package dev.tokenmeter.simulator.virtual;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.loadgen.RequestSink;
import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.loadgen.StageRunner;
import dev.tokenmeter.core.loadgen.Timeouts;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Variation;
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
 *   its KV cache carry over too (a stage cancels what it left in flight, which frees it, and the
 *   next starts once the iteration in flight has ended, on an idle engine).
 * - The client's self-watch reads 0 lag (a virtual task runs exactly when due) and no CPU
 *   (ClientCpu.UNKNOWN): there is no client to be the bottleneck, and no warning says so.
 * - Deterministic: the same plans, seeds and workload give the same events in the same order,
 *   hence identical results. Nothing reads the wall clock.
 * - Interrupt (Ctrl-C): any thread may call interrupt(); the loop reads the flag before each task
 *   (one volatile read) and, on its own thread, stops the stage as bench's runner stops on Ctrl-C:
 *   in-flight requests are cancelled and the stage is recorded as incomplete.
 * </pre>
 *
 * <p>Not thread-safe: run stages from one thread, one at a time; only {@link #interrupt} and
 * {@link #interrupted} may be called from any thread.
 */
public final class Simulation {
  private final VirtualLoop loop = new VirtualLoop(0);
  private final EngineEndpoint endpoint;
  private final Timeouts timeouts;
  private final RequestSink sink;
  private final OutputTokenCounter counter;
  private volatile String interruptReason;
  private boolean interruptForwarded;

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
    this(config, timeouts, defaultMaxTokens, sink, counter, sharedPrefixTokens, Variation.NONE);
  }

  /**
   * A simulation whose engine varies as {@code variation} says (iteration times, arrival delays);
   * {@link Variation#NONE} is the exact engine of the other constructors.
   */
  public Simulation(
      EngineConfig config,
      Timeouts timeouts,
      int defaultMaxTokens,
      RequestSink sink,
      OutputTokenCounter counter,
      int sharedPrefixTokens,
      Variation variation) {
    this(config, null, timeouts, defaultMaxTokens, sink, counter, sharedPrefixTokens, variation);
  }

  /**
   * A simulation served by disaggregated prefill and decode {@code pools} (null: one engine of
   * {@code config}; with pools, {@code config} is the decode pool's).
   */
  public Simulation(
      EngineConfig config,
      dev.tokenmeter.simulator.engine.DisaggregatedEngine.Pools pools,
      Timeouts timeouts,
      int defaultMaxTokens,
      RequestSink sink,
      OutputTokenCounter counter,
      int sharedPrefixTokens,
      Variation variation) {
    this.endpoint =
        new EngineEndpoint(config, pools, loop, defaultMaxTokens, sharedPrefixTokens, variation);
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

  /**
   * Stops the stage running now (or the next one, at once), as Ctrl-C stops a bench stage: the
   * stage ends at the current virtual time, marked incomplete. Thread-safe; the first reason wins.
   */
  public void interrupt(String reason) {
    Objects.requireNonNull(reason, "reason");
    if (interruptReason == null) {
      interruptReason = reason;
    }
  }

  /** Whether {@link #interrupt} was called. Thread-safe. */
  public boolean interrupted() {
    return interruptReason != null;
  }

  /**
   * Runs one stage to its end in virtual time (or until {@link #interrupt}) and returns what it
   * recorded.
   */
  public StageResult runStage(StagePlan plan, RequestSource source) {
    // The last stage cancelled its requests, but the iteration it had in flight still ends, up to
    // one iteration later: let it, so that every stage starts on an idle engine. A stage's numbers
    // then depend on its plan and seed alone, and a repeat with the same seed gives the same ones.
    loop.runUntil(endpoint::idle);
    StageRunner runner = new StageRunner(endpoint, plan, source, timeouts, loop, sink, counter);
    CompletableFuture<Long> done = runner.start();
    interruptForwarded = false;
    if (!loop.runUntil(() -> done.isDone() || forwardInterrupt(runner))) {
      // Unreachable while StageRunner keeps its timers: it always has a tick pending until it stops.
      throw new IllegalStateException("stage " + plan.index() + " ran out of events before it ended");
    }
    return runner.recorder().finish(done.join(), ClientCpu.UNKNOWN);
  }

  /** On the loop's thread: hands a pending interrupt to the runner once. Never ends the loop itself. */
  private boolean forwardInterrupt(StageRunner runner) {
    String reason = interruptReason;
    if (reason != null && !interruptForwarded) {
      interruptForwarded = true;
      runner.interrupt(reason);
    }
    return false;
  }
}
