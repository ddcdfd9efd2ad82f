package dev.tokenmeter.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs one command object as cli.Main would, capturing what it prints. */
final class CommandHarness {
  private CommandHarness() {}

  /** Exit code and both streams of one run. */
  record Run(int exit, String out, String err) {}

  /**
   * Runs {@code command} with {@code args}; bad input is handled as cli.Main does: the message
   * alone on stderr, exit 2.
   */
  static Run run(Object command, String... args) {
    CommandLine cl = new CommandLine(command);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    cl.setExecutionExceptionHandler((e, c, parsed) -> {
      if (!(e instanceof UsageException || e instanceof IllegalArgumentException)) {
        throw e;
      }
      c.getErr().println("tokenmeter: " + e.getMessage());
      return Main.EXIT_USAGE;
    });
    int exit = cl.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }
}
