package dev.tokenmeter.cli;

import dev.tokenmeter.core.Version;
import dev.tokenmeter.run.RunFailedException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the {@code tokenmeter} command: picocli wiring and the one place that turns
 * exceptions into messages and exit codes (0 ok, 1 run failed, 2 usage error, 3 SLO violated,
 * 130 interrupted). Users never see a stack trace unless {@code TOKENMETER_DEBUG=1}.
 */
@Command(
    name = "tokenmeter",
    mixinStandardHelpOptions = true,
    versionProvider = Main.VersionProvider.class,
    description = "Measures how fast LLM servers really serve tokens: TTFT, TPOT, ITL, tokens/s, under load.",
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter demo",
      "  tokenmeter bench --url http://127.0.0.1:8000 --model M --concurrency 1,10,50",
      "  tokenmeter simulate --model llama-3.1-8b --gpu h100-sxm --concurrency 1,16,64",
      "  tokenmeter proxy --upstream http://127.0.0.1:8000",
      "%nEach command's options and examples: tokenmeter COMMAND --help"
    },
    subcommands = {
      BenchCommand.class,
      CompareCommand.class,
      DemoCommand.class,
      K8sCommand.class,
      MergeCommand.class,
      ProxyCommand.class,
      SimCommand.class,
      SimulateCommand.class,
      ReportCommand.class,
      TokensCommand.class,
      WorkerCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main {
  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILED = 1;
  public static final int EXIT_USAGE = 2;
  /** The run finished but violated its {@code --slo} (with a search: no load met it). */
  public static final int EXIT_SLO_VIOLATED = 3;
  public static final int EXIT_INTERRUPTED = 130;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns the exit code (never exits the JVM). */
  public static int run(String... args) {
    return commandLine().execute(args);
  }

  /** The command line with tokenmeter's error handling, ready to execute. */
  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    cl.setExecutionExceptionHandler(Main::onError);
    cl.setParameterExceptionHandler(Main::onBadArguments);
    return cl;
  }

  private static int onBadArguments(CommandLine.ParameterException e, String[] args) {
    PrintWriter err = e.getCommandLine().getErr();
    err.println("tokenmeter: " + e.getMessage());
    err.println("Try '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
    return EXIT_USAGE;
  }

  private static int onError(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
    PrintWriter err = cl.getErr();
    if (e instanceof UsageException
        || e instanceof IllegalArgumentException
        || e instanceof dev.tokenmeter.workload.WorkloadException) {
      // Control characters a user typed are escaped; the line breaks of a message that lists
      // several mistakes (the proxy's settings) are the message's own and stay.
      err.println("tokenmeter: " + java.util.Arrays.stream(String.valueOf(e.getMessage()).split("\n", -1))
          .map(Durations::printable).collect(java.util.stream.Collectors.joining("\n")));
      debug(e, err);
      return EXIT_USAGE;
    }
    if (e instanceof RunFailedException) {
      err.println("tokenmeter: " + e.getMessage());
      debug(e, err);
      return EXIT_FAILED;
    }
    err.println("tokenmeter: unexpected error: " + e);
    err.println("  This is a bug in tokenmeter; rerun with TOKENMETER_DEBUG=1 for details and report it.");
    debug(e, err);
    return EXIT_FAILED;
  }

  private static void debug(Exception e, PrintWriter err) {
    if ("1".equals(System.getenv("TOKENMETER_DEBUG"))) {
      e.printStackTrace(err);
    }
  }

  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"tokenmeter " + Version.VERSION, "Java " + Runtime.version()};
    }
  }
}
