package dev.tokenmeter.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * One command run in-process as {@link Main} runs it for bad input (the message alone on stderr,
 * exit 2), with what it printed.
 *
 * @param exit the exit code
 * @param out standard output
 * @param err standard error
 */
record CommandRun(int exit, String out, String err) {

  /** Runs {@code command} (a picocli command object) with {@code args}. */
  static CommandRun of(Object command, String... args) {
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
    return new CommandRun(exit, out.toString(), err.toString());
  }
}
