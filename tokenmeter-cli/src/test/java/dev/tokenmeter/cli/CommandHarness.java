package dev.tokenmeter.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * Runs one command object exactly as {@code tokenmeter} runs it, capturing what it prints: the
 * object takes its place in {@link Main#commandLine()}'s tree (same parents, same exception
 * handlers, same exit codes and messages, "Try 'tokenmeter proxy usage --help'." included), and the
 * arguments follow the command's path from the root.
 *
 * <p>The tests' two ways to run a command, both through {@code Main}: {@code testkit.Cli} for a
 * whole command line as a user types it (the process's {@code System.out} and {@code System.err}),
 * and this harness for a command built with what a test injects (a fixed clock, an environment),
 * whose own writers it captures.
 */
final class CommandHarness {
  private CommandHarness() {}

  /** Exit code and both streams of one run. */
  record Run(int exit, String out, String err) {}

  /** Runs {@code command}, placed where its class sits under {@link Main}, with {@code args}. */
  static Run run(Object command, String... args) {
    CommandLine root = Main.commandLine();
    List<String> path = graft(root, command);
    if (path == null) {
      throw new IllegalArgumentException(command.getClass().getName() + " is not a command of tokenmeter's tree");
    }
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    root.setOut(new PrintWriter(out, true)); // after the graft: picocli hands writers to the subcommands it has
    root.setErr(new PrintWriter(err, true));
    path.addAll(List.of(args));
    int exit = root.execute(path.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  /**
   * Replaces the subcommand of {@code command}'s class below {@code parent} by {@code command} and
   * returns the names from {@code parent} to it, or null when no subcommand has that class.
   */
  private static List<String> graft(CommandLine parent, Object command) {
    for (Map.Entry<String, CommandLine> e : parent.getSubcommands().entrySet()) {
      CommandLine sub = e.getValue();
      if (sub.getCommandSpec().userObject().getClass() == command.getClass()) {
        String name = sub.getCommandName();
        parent.getCommandSpec().removeSubcommand(name);
        parent.addSubcommand(name, new CommandLine(command), sub.getCommandSpec().aliases());
        return new ArrayList<>(List.of(name));
      }
      List<String> below = graft(sub, command);
      if (below != null) {
        below.addFirst(e.getKey());
        return below;
      }
    }
    return null;
  }
}
