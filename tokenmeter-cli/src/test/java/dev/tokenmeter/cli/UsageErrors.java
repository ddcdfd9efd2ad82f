package dev.tokenmeter.cli;

import picocli.CommandLine;

/** For command tests: bad input handled as {@code cli.Main} does, the message alone and exit 2. */
final class UsageErrors {
  private UsageErrors() {}

  /** Makes {@code cl} print {@code tokenmeter: MESSAGE} and return {@link Main#EXIT_USAGE} for bad input. */
  static CommandLine mapped(CommandLine cl) {
    cl.setExecutionExceptionHandler((e, c, parsed) -> {
      if (!(e instanceof UsageException || e instanceof IllegalArgumentException)) {
        throw e;
      }
      c.getErr().println("tokenmeter: " + e.getMessage());
      return Main.EXIT_USAGE;
    });
    return cl;
  }
}
