package dev.tokenmeter.bench;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.loadgen.Timeouts;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.simulator.virtual.Simulation;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code tokenmeter simulate}'s own cost: one stage of Llama 3.1 8B on one H100 SXM in virtual
 * time, 512-token prompts and 256-token answers, bench's stage runner over the batch engine as
 * the command runs it (the CLI's default timeouts), without the requests.jsonl writer. The
 * primary score is stages per second; the secondary {@code tokens} is simulated output tokens per
 * wall second, each one delivered to the stage runner, timestamped into its request's timeline and
 * recorded as the command does. {@code users = 256} is row 1 of docs/PERFORMANCE.md,
 * "The simulator in virtual time" (256
 * tokens per engine step), {@code users = 1} its low-concurrency stages (one token per step: the
 * engine's and the event loop's cost per iteration).
 *
 * <pre>
 * ./mvnw -q -o -Pjmh package -DskipTests
 * java -jar target/tokenmeter-jmh.jar SimulateBenchmark -f 1 -wi 3 -w 2 -i 5 -r 2
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SimulateBenchmark {
  private static final long S = 1_000_000_000L;
  private static final EngineConfig LLAMA_8B_H100 =
      EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm"));
  /** The CLI's defaults: --timeout-first-token 60s, --timeout-idle 30s, --timeout-total 10m. */
  private static final Timeouts CLI_DEFAULTS = new Timeouts(60 * S, 30 * S, 600 * S);
  private static final Prompt.Text LENGTHS_ONLY = new Prompt.Text("");

  /** Closed-loop users. */
  @Param({"256", "1"})
  public int users;

  /** Simulated output tokens, counted per iteration of the benchmark. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Tokens {
    public long tokens;

    @Setup(Level.Iteration)
    public void clear() {
      tokens = 0;
    }
  }

  private StagePlan plan;

  @Setup
  public void setUp() {
    // 60 s of virtual time: about 0.5 M tokens at 256 users, 8 k at 1.
    plan = new StagePlan(0, new LoadModel.Closed(users, 0), new StopCondition.Duration(60 * S), 2 * S, S, 1);
  }

  @Benchmark
  public StageResult stage(Tokens counted) {
    Simulation sim =
        new Simulation(LLAMA_8B_H100, CLI_DEFAULTS, 256, (t, m) -> counted.tokens += t.chunkCount(), null);
    return sim.runStage(plan, id -> new RequestSpec(id, LENGTHS_ONLY, 512, true, OptionalInt.of(256)));
  }
}
