package dev.tokenmeter.cli;

import dev.tokenmeter.client.EndpointConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code tokenmeter bench}: load-tests an OpenAI-compatible endpoint. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Load-tests an OpenAI-compatible streaming endpoint and reports TTFT, TPOT, ITL and tokens/s per stage.",
      "Writes requests.jsonl and summary.json to --out DIR (metric definitions: docs/METRICS.md)."
    })
final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @ArgGroup(validate = false, heading = "%nTarget:%n")
  TargetOptions target = new TargetOptions();

  @ArgGroup(validate = false, heading = "%nLoad:%n")
  LoadOptions load = new LoadOptions();

  @ArgGroup(validate = false, heading = "%nWorkload:%n")
  WorkloadOptions workload = new WorkloadOptions();

  @ArgGroup(validate = false, heading = "%nTimeouts and output:%n")
  OutputOptions output = new OutputOptions();

  @Override
  public Integer call() {
    PrintStream out = System.out;
    PrintStream err = System.err;
    var stages = load.stages();
    var requests = workload.factory();
    var timeouts = output.timeouts();
    EndpointConfig probe = target.config(target.model);
    Preflight.Result pre = Preflight.check(probe, Duration.ofSeconds(10));
    pre.warnings().forEach(w -> err.println("tokenmeter: warning: " + w));
    String model = target.model;
    if (model == null && !pre.models().isEmpty()) {
      model = pre.models().get(0);
      err.println("tokenmeter: --model not given; using the server's first model '" + model + "'");
    }
    EndpointConfig cfg = target.config(model);
    BenchRun run =
        new BenchRun(
            new BenchRun.Settings(
                cfg,
                stages,
                requests,
                timeouts,
                output.outDir(Instant.now()),
                !output.quiet && ProgressLine.isTerminal(),
                commandLine(),
                load.seed,
                workload.describe(),
                output.rawTimes),
            out,
            err);
    run.run();
    return run.interrupted() ? Main.EXIT_INTERRUPTED : Main.EXIT_OK;
  }

  private List<String> commandLine() {
    List<String> cl = new ArrayList<>();
    cl.add("tokenmeter");
    cl.add("bench");
    cl.addAll(spec.commandLine().getParseResult().originalArgs());
    return cl;
  }
}
