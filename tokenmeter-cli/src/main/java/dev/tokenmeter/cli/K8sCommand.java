package dev.tokenmeter.cli;

import dev.tokenmeter.run.K8sManifests;
import dev.tokenmeter.run.RunFailedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tokenmeter k8s}: Kubernetes manifests for runs beyond one machine. */
@Command(
    name = "k8s",
    mixinStandardHelpOptions = true,
    description = {"Writes Kubernetes manifests that run 'bench --workers N' as Jobs on a cluster."},
    subcommands = {K8sCommand.Render.class})
final class K8sCommand {

  /** {@code tokenmeter k8s render --workers N --image IMG --out DIR -- BENCH ARGS}. */
  @Command(
      name = "render",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = {
        "Writes the manifests of one 'bench --workers N' run: a ConfigMap, a results volume, the coordinator and an Indexed Job of workers.",
        "The bench arguments after '--' are the workload (checked here as bench checks them); each worker's resources are sized from its share of the streams. How to run them: docs/WORKERS.md."
      },
      footerHeading = "%nExamples:%n",
      footer = {
        "  tokenmeter k8s render --workers 4 --image ghcr.io/acme/tokenmeter:0.1.0 --out k8s/ \\",
        "      -- --url http://vllm:8000 --model M --concurrency 2000 --duration 120s"
      })
  static final class Render implements Callable<Integer> {
    @Option(names = "--workers", required = true, paramLabel = "N", description = "Worker pods (the Indexed Job's completions); each runs 1/N of the load.")
    int workers;

    @Option(names = "--image", required = true, paramLabel = "IMAGE", description = "The tokenmeter container image (Dockerfile or './mvnw -Pjib package' builds one).")
    String image;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder for the manifests (created): configmap.yaml, results-pvc.yaml, coordinator.yaml, workers.yaml.")
    Path out;

    @Option(names = "--name", paramLabel = "NAME", description = "Prefix of every object's name (default: ${DEFAULT-VALUE}).")
    String name = "tokenmeter";

    @Option(names = "--namespace", paramLabel = "NS", description = "Namespace of every object (default: none, kubectl's current one).")
    String namespace;

    @Option(names = "--results-size", paramLabel = "SIZE", description = "Size of the results volume (default: ${DEFAULT-VALUE}).")
    String resultsSize = "1Gi";

    @Parameters(paramLabel = "BENCH_ARGS", arity = "1..*", description = "The bench arguments, after '--': target, load, workload.")
    List<String> benchArgs = new ArrayList<>();

    @Override
    public Integer call() {
      for (String a : benchArgs) {
        String flag = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
        if (List.of("--workers", "--worker-launch", "--coordinator-listen", "--out").contains(flag)) {
          throw new UsageException(flag + " is set by k8s render itself: leave it out of the bench arguments");
        }
      }
      if (!resultsSize.matches("\\d+(Ki|Mi|Gi|Ti)")) {
        throw new UsageException("--results-size wants a Kubernetes quantity like 1Gi or 500Mi, got '" + resultsSize + "'");
      }
      BenchCommand bench = parse(benchArgs);
      bench.workers.workers = workers;
      bench.workers.check(bench.load, bench.repeats.repeat, false, !bench.variants.isEmpty(),
          bench.serverMetrics.url != null, bench.export.metricsPort != null || bench.export.otlp != null);
      int streams = streamsPerWorker(bench.load, workers);
      Map<String, String> files = K8sManifests.render(new K8sManifests.Settings(name, namespace, image, workers,
          benchArgs, streams, resultsSize));
      try {
        Files.createDirectories(out);
        for (Map.Entry<String, String> f : files.entrySet()) {
          Files.writeString(out.resolve(f.getKey()), f.getValue(), StandardCharsets.UTF_8);
        }
      } catch (IOException e) {
        throw new RunFailedException("cannot write the manifests to " + out + ": " + e.getMessage());
      }
      System.out.println("Wrote " + String.join(", ", files.keySet()) + " to " + out + ": " + workers + " workers of "
          + streams + " streams each. Run: kubectl apply -f " + out + " (docs/WORKERS.md)");
      return Main.EXIT_OK;
    }

    /** The bench arguments parsed as bench parses them; a mistake is the same usage error. */
    private static BenchCommand parse(List<String> args) {
      CommandLine cl = Main.commandLine();
      List<String> all = new ArrayList<>();
      all.add("bench");
      all.addAll(args);
      try {
        cl.parseArgs(all.toArray(String[]::new));
      } catch (CommandLine.ParameterException e) {
        throw new UsageException("the bench arguments: " + e.getMessage());
      }
      return (BenchCommand) cl.getSubcommands().get("bench").getCommand();
    }

    /**
     * The most streams one worker holds: the largest --concurrency (or --max-concurrency) over N;
     * an uncapped open loop by Little's law at 10 s a request, the largest --rate × 10 over N.
     */
    static int streamsPerWorker(LoadOptions load, int workers) {
      int total = 0;
      for (Integer c : load.concurrency) {
        total = Math.max(total, c);
      }
      if (load.maxConcurrency != null) {
        total = Math.max(total, load.maxConcurrency);
      } else {
        for (Double r : load.rate) {
          total = Math.max(total, (int) Math.ceil(r * 10));
        }
      }
      return Math.max(1, (total + workers - 1) / workers);
    }
  }
}
