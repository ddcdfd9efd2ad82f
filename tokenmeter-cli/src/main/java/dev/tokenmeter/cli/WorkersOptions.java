package dev.tokenmeter.cli;

import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.run.Coordinator;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import picocli.CommandLine.Option;

/** {@code bench --workers N}: load from N worker processes that one coordinator (this bench) runs. */
final class WorkersOptions {
  /** The bench options that belong to the coordinator, not to the workers, with whether they take a value. */
  private static final Set<String> COORDINATOR_ONLY_WITH_VALUE = Set.of("--workers", "--worker-launch",
      "--coordinator-listen", "--out");
  private static final Set<String> COORDINATOR_ONLY_FLAGS = Set.of("-q", "--quiet");
  private static final long REGISTER_TIMEOUT_NANOS = 180_000_000_000L; // 3 min: pods pull an image, then start

  @Option(names = "--workers", paramLabel = "N", description = "Run the load from N worker processes that start"
      + " together and whose results merge exactly into --out (docs/WORKERS.md): closed loop, each runs 1/N of the"
      + " users; open loop, every N-th arrival of one schedule.")
  Integer workers;

  @Option(names = "--worker-launch", paramLabel = "local|external", description = "With --workers: local (default)"
      + " starts the N workers as child processes here; external waits for N 'tokenmeter worker --coordinator URL'"
      + " processes started elsewhere (other machines, a Kubernetes Job: 'tokenmeter k8s render').")
  String launch = "local";

  @Option(names = "--coordinator-listen", paramLabel = "HOST:PORT", description = "With --workers: the address"
      + " of the coordinator's control API that workers register with (default 127.0.0.1:0, any free port;"
      + " 0.0.0.0:7070 for workers on other machines).")
  String listen = "127.0.0.1:0";

  boolean enabled() {
    return workers != null;
  }

  /**
   * Checks that the run can be shared among the workers, before anything starts; a problem is a
   * {@link UsageException} naming the option and the fix.
   */
  void check(LoadOptions load, int repeat, boolean gated, boolean variants, boolean serverMetrics, boolean export) {
    if (workers < 1 || workers > 1024) {
      throw new UsageException("--workers must be between 1 and 1024, got " + workers);
    }
    if (!launch.equals("local") && !launch.equals("external")) {
      throw new UsageException("--worker-launch must be local or external, got '" + launch + "'");
    }
    String no = variants ? "--variant" : gated ? "--slo or a capacity search" : repeat > 1 ? "--repeat"
        : serverMetrics ? "--server-metrics" : export ? "--metrics-port or --otlp"
        : load.requests != null ? "--requests" : load.maxRequests != null ? "--max-requests" : null;
    if (no != null) {
      throw new UsageException("--workers cannot be combined with " + no + " yet: the workers share a --duration"
          + " window and a fixed list of stages; gate or compare the merged folder afterwards (tokenmeter report,"
          + " compare)");
    }
    for (Integer c : load.concurrency) {
      divisible("--concurrency", c);
    }
    if (load.maxConcurrency != null) {
      divisible("--max-concurrency", load.maxConcurrency);
    }
    address();
  }

  private void divisible(String option, int n) {
    if (n % workers != 0) {
      int below = n / workers * workers;
      throw new UsageException(option + " " + n + " is the total over the " + workers + " workers and must divide"
          + " evenly: use " + (below > 0 ? below + " or " : "") + (below + workers));
    }
  }

  InetSocketAddress address() {
    int colon = listen.lastIndexOf(':');
    try {
      if (colon < 1) {
        throw new NumberFormatException();
      }
      int port = Integer.parseInt(listen.substring(colon + 1));
      if (port < 0 || port > 65535) {
        throw new NumberFormatException();
      }
      return new InetSocketAddress(listen.substring(0, colon).replace("[", "").replace("]", ""), port);
    } catch (NumberFormatException e) {
      throw new UsageException("--coordinator-listen wants HOST:PORT (127.0.0.1:0, 0.0.0.0:7070), got '" + listen + "'");
    }
  }

  /** The bench arguments the workers run: the user's, less the coordinator's own options. */
  static List<String> workerArgs(List<String> original) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < original.size(); i++) {
      String a = original.get(i);
      String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (COORDINATOR_ONLY_WITH_VALUE.contains(name)) {
        i += a.contains("=") ? 0 : 1;
      } else if (!COORDINATOR_ONLY_FLAGS.contains(a) && !(i == 0 && a.equals("bench"))) {
        out.add(a);
      }
    }
    return out;
  }

  /** Each worker's share of the first stage, in words, for the results. */
  List<String> shares(StagePlan first) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      out.add(switch (first.load()) {
        case LoadModel.Closed c -> "c=" + c.concurrency() / workers + " of c=" + c.concurrency();
        case LoadModel.Open o -> workers == 1 ? "every arrival"
            : String.format(Locale.ROOT, "arrivals %d, %d, %d, ... of %s", i, i + workers, i + 2 * workers, o.label());
      });
    }
    return out;
  }

  Coordinator.Settings settings(List<String> args, StagePlan first, Path outDir) {
    return new Coordinator.Settings(workers, address(), args, shares(first), outDir, launch.equals("local"),
        REGISTER_TIMEOUT_NANOS);
  }
}
