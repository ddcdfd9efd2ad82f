package dev.tokenmeter.cli;

import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.run.SimulateRun;
import dev.tokenmeter.run.SloRun;
import dev.tokenmeter.run.StageSequence;
import dev.tokenmeter.simulator.engine.EngineConfig;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tokenmeter simulate}: the capacity planner. bench's load models and workloads against the
 * engine model in virtual time (no server, no sockets), written as the same results folder.
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    abbreviateSynopsis = true,
    sortOptions = false,
    description = {
      "Predicts what bench would measure against --model served on --gpus x --gpu, in seconds.",
      "The same continuous-batching engine model as `sim serve`, run as a discrete-event simulation in virtual time with bench's load models and workloads. Every request generates exactly its max_tokens (ignore_eos). Writes the same requests.jsonl and summary.json as bench (settings.simulation marks them simulated)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter simulate --model llama-3.1-70b --gpu h100-sxm --gpus 4 \\",
      "      --concurrency 1,16,64,256",
      "  tokenmeter simulate --model llama-3.1-70b --gpu h100-sxm --gpus 4 \\",
      "      --find-max-concurrency 1..512 --slo 'ttft.p99<=1s,tps.p10>=30'",
      "  tokenmeter simulate --workload profile.json --model llama-3.1-8b \\",
      "      --gpu h100-sxm --rate 2,4,8",
      "  tokenmeter simulate --model deepseek-r1 --gpu h200 --gpus 8 --engine sglang \\",
      "      --dp-attention --expert-parallel 8 --concurrency 64,256,1024",
      "  tokenmeter simulate --model llama-3.1-70b --gpu h100-sxm --prefill-gpus 4 \\",
      "      --decode-gpus 4 --rate 2,4,8 --input-tokens 4096 --output-tokens 256"
    })
final class SimulateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin EngineOptions engine = new EngineOptions();

  @ArgGroup(validate = false, heading = "%nDisaggregated prefill/decode (docs/PLANNER.md):%n")
  DisaggOptions disagg = new DisaggOptions();

  @ArgGroup(validate = false, heading = "%nTails (variation of the simulated engine):%n")
  VariationOptions variation = new VariationOptions();

  @ArgGroup(validate = false, heading = "%nLoad:%n")
  LoadOptions load = new LoadOptions();

  @ArgGroup(validate = false, heading = "%nWorkload:%n")
  WorkloadOptions workload = new WorkloadOptions();

  @ArgGroup(validate = false, heading = "%nRepeats:%n")
  RepeatOptions repeats = new RepeatOptions();

  @ArgGroup(validate = false, heading = "%nCost (GPUs: --gpus):%n")
  CostOptions cost = new CostOptions();

  @ArgGroup(validate = false, heading = "%nTrace replay (virtual time):%n")
  TraceOptions trace = new TraceOptions();

  @ArgGroup(validate = false, heading = "%nTimeouts (virtual time) and output:%n")
  OutputOptions output = new OutputOptions();

  @ArgGroup(validate = false, heading = "%nSLO gates and capacity search:%n")
  SloOptions slo = new SloOptions();

  @Option(names = "--parallel-tool-calls", paramLabel = "N", description = "With --profile agent: tool calls in each answer the simulated model makes, the tools offered in turn, as sim serve --parallel-tool-calls N (default: 1; 1-64). See docs/SIM-SERVE.md, Parallel tool calls.")
  int parallelToolCalls = 1;

  /** The run, once started: for the Ctrl-C hook of a test. */
  private volatile SimulateRun running;

  @Override
  public Integer call() {
    workload.rateFromProfile(load, System.err);
    workload.conversationsFromProfile(cost, load, spec, System.err);
    var turns = cost.sessionTurns();
    if (turns != null) {
      // Real conversations in virtual time: the sessions' text identifies each history's blocks in
      // the simulated prefix cache, so later turns hit what earlier turns left there.
      cost.sessionsAreReal = true;
      load.sessions = true;
      workload.sessions(turns, load.thinkTime());
    }
    if (workload.completion()) {
      // Typing bursts are sessions: the think time is the users' pause between bursts.
      load.sessions = true;
      workload.typing(spec.commandLine().getParseResult().hasMatchedOption("--think-time")
          ? load.thinkTime() : WorkloadOptions.COMPLETION_PAUSE);
    }
    if (trace.enabled()) {
      if (turns != null || workload.completion() || workload.prompts != null || workload.workloadFile != null
          || workload.inputTokens != null || workload.outputTokens != null || workload.sharedPrefixTokens != 0) {
        throw new UsageException("--trace gives every request's lengths and prompt blocks: drop --turns, --profile,"
            + " --prompts, --workload, --input-tokens, --output-tokens and --shared-prefix-tokens");
      }
      if (slo.findMaxConcurrency != null || slo.findMaxRate != null) {
        throw new UsageException("--trace is the schedule: it cannot be combined with --find-max-concurrency/--find-max-rate");
      }
      load.planned = trace.plan(load, load.maxConcurrency == null ? java.util.OptionalInt.empty()
          : java.util.OptionalInt.of(load.maxConcurrency));
      trace.announce(System.err);
    }
    SloRun sloRun = slo.resolve(load);
    StageSequence stages = repeats.sequence(sloRun.stages());
    var pools = disagg.enabled()
        ? disagg.pools(engine, spec.commandLine().getParseResult().hasMatchedOption("--gpus")) : null;
    EngineConfig config = pools != null ? pools.decode() : engine.config();
    Cost.Model costModel = cost.model(pools != null
        ? pools.prefill().tensorParallel() + pools.decode().tensorParallel() : config.tensorParallel());
    var requests = trace.enabled() ? trace.standInFactory()
        : turns != null || workload.completion() ? workload.factory(config.model().name())
        : workload.lengthsFactory(config.model().name());
    if (parallelToolCalls < 1 || parallelToolCalls > 64) {
      throw new UsageException("--parallel-tool-calls " + parallelToolCalls + " is not a count of tool calls: give 1-64,"
          + " e.g. --parallel-tool-calls 3");
    }
    if (parallelToolCalls != 1 && workload.trafficProfile() != Profile.AGENT) {
      throw new UsageException("--parallel-tool-calls needs --profile agent (only agent steps call tools): add"
          + " --profile agent --turns N, or drop --parallel-tool-calls");
    }
    if ("none".equalsIgnoreCase(workload.outputTokens)) {
      throw new UsageException("simulate needs output lengths: give --output-tokens (the simulated engine generates exactly max_tokens)");
    }
    SimulateRun run =
        new SimulateRun(
            new SimulateRun.Settings(
                config,
                variation.resolve(load.seed),
                stages,
                sloRun,
                costModel,
                requests,
                workload.sharedPrefixTokens,
                output.timeouts(),
                output.outDir(Instant.now()),
                output.rawTimes,
                Runs.commandLine(spec),
                load.seed,
                described(),
                notes(),
                cost.powerPricePerKwh(),
                costModel == null ? cost.currency.strip() : costModel.currency(),
                pools,
                parallelToolCalls),
            System.out,
            System.err);
    running = run;
    run.run();
    return Runs.exitCode(run.interrupted(), run.sloViolated());
  }

  /**
   * What to keep in mind reading this run's numbers: a closed loop of fixed output lengths keeps
   * its users in step (docs/SIMULATOR.md, Tails).
   */
  private List<String> notes() {
    boolean closedLoop = load.concurrency.stream().anyMatch(c -> c > 1) || slo.searchMaxConcurrency() > 1;
    if (!closedLoop || !workload.fixedOutputLengths()) {
      return List.of();
    }
    return List.of("note: closed-loop users all start at once and fixed output lengths keep them in"
        + " step, so their prompts prefill together every round, where real clients drift apart; read"
        + " TTFT here as one end of a range and rerun with spread lengths (--output-tokens"
        + " uniform:A,B) for the other (docs/SIMULATOR.md Tails)");
  }

  /** The workload as summary.json describes a simulated one. */
  private Map<String, Object> described() {
    Map<String, Object> described = workload.describe();
    if (trace.enabled()) {
      described.remove("input_tokens");
      described.remove("output_tokens");
      described.remove("shared_prefix_tokens");
      described.putAll(trace.describe());
    }
    if (workload.prompts == null) {
      // Synthetic lengths are the token counts the engine simulates: exact by construction.
      described.put("input_tokens_exact", true);
      described.put("tokenizer", "none");
      described.put("tokenizer_source", "simulate: drawn lengths are token counts");
    }
    described.put("ignore_eos", true);
    return described;
  }

  /** Stages started so far (0 before the run starts); for tests waiting for a sweep to get somewhere. */
  int stagesStarted() {
    SimulateRun r = running;
    return r == null ? 0 : r.stagesStarted();
  }

  /** What Ctrl-C does: stops the run and waits until its partial results are written. Any thread. */
  void onSignal() {
    SimulateRun r = running;
    if (r != null) {
      r.onSignal();
    }
  }
}
