package dev.tokenmeter.cli;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.run.WorkerLink;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tokenmeter worker --coordinator URL}: one of the workers of a {@code bench --workers N}
 * run. Registers with the coordinator, runs the bench it is given on its share of the load, in step
 * with the other workers, and streams its results back (docs/WORKERS.md).
 */
@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs one worker's share of a 'bench --workers N' run, in step with the other workers.",
      "Registers with the coordinator, gets its shard, starts each stage at the instant all workers agreed on and streams its results back.",
      "Started by bench itself (--worker-launch local) or elsewhere, one per machine or pod (--worker-launch external; 'tokenmeter k8s render')."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter worker --coordinator http://10.0.0.5:7070",
      "  tokenmeter worker --coordinator http://tokenmeter-coordinator:7070 --index 3"
    })
final class WorkerCommand implements Callable<Integer> {
  @Option(names = "--coordinator", required = true, paramLabel = "URL", description = "The coordinator's control API: the URL 'bench --workers' prints.")
  URI coordinator;

  @Option(names = "--index", paramLabel = "I", description = "This worker's shard, 0..N-1 (default: $JOB_COMPLETION_INDEX in a Kubernetes Indexed Job, else the coordinator assigns one).")
  Integer index;

  @Override
  public Integer call() throws IOException {
    int asked = index != null ? index : indexFromJob();
    if (coordinator.getScheme() == null || coordinator.getHost() == null) {
      throw new UsageException("--coordinator wants a URL like http://HOST:PORT, got '" + coordinator + "'");
    }
    Path out = Files.createTempDirectory("tokenmeter-worker-");
    try (WorkerLink link = WorkerLink.connect(coordinator, asked, Ticker.system(), System.err)) {
      CommandLine cl = Main.commandLine();
      BenchCommand bench = (BenchCommand) cl.getSubcommands().get("bench").getCommand();
      bench.worker = link;
      List<String> args = new ArrayList<>();
      args.add("bench");
      args.addAll(link.args());
      args.addAll(List.of("--out", out.toString(), "--quiet"));
      link.startStreaming(out);
      int code = cl.execute(args.toArray(String[]::new));
      link.done(code);
      return code;
    } finally {
      deleteQuietly(out);
    }
  }

  private static int indexFromJob() {
    String v = System.getenv("JOB_COMPLETION_INDEX");
    if (v == null || v.isBlank()) {
      return -1;
    }
    try {
      return Integer.parseInt(v.strip());
    } catch (NumberFormatException e) {
      throw new UsageException("JOB_COMPLETION_INDEX is '" + v + "', not a number: give --index I");
    }
  }

  private static void deleteQuietly(Path dir) {
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary folder left behind is harmless
    }
  }
}
