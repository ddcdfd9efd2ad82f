package dev.tokenmeter.cli;

import dev.tokenmeter.client.EndpointConfig;
import java.io.PrintStream;
import java.time.Duration;
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

  @ArgGroup(validate = false, heading = "%nRepeats:%n")
  RepeatOptions repeats = new RepeatOptions();

  @ArgGroup(validate = false, heading = "%nCost:%n")
  CostOptions.WithGpus cost = new CostOptions.WithGpus();

  @ArgGroup(validate = false, heading = "%nTimeouts and output:%n")
  OutputOptions output = new OutputOptions();

  @ArgGroup(validate = false, heading = "%nSLO gates and capacity search:%n")
  SloOptions slo = new SloOptions();

  @Override
  public Integer call() {
    PrintStream err = System.err;
    SloRun sloRun = slo.resolve(load);
    var stages = repeats.sequence(sloRun.stages());
    var pricing = cost.model();
    workload.validate();
    output.timeouts(); // validate before contacting the server
    EndpointConfig probe = target.config(target.model);
    Preflight.Result pre = Preflight.check(probe, Duration.ofSeconds(10));
    pre.warnings().forEach(w -> err.println("tokenmeter: warning: " + w));
    String model = target.model;
    if (model == null && !pre.models().isEmpty()) {
      model = pre.models().get(0);
      err.println("tokenmeter: --model not given; using the server's first model '" + model + "'");
    }
    EndpointConfig cfg = target.config(model);
    var requests = workload.factory(model);
    err.println("tokenmeter: " + workload.tokenizerLine());
    return BenchRun.execute(cfg, stages, requests, workload, output, load.seed, pricing, spec, sloRun);
  }
}
