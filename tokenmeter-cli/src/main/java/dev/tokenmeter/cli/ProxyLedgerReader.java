package dev.tokenmeter.cli;

import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerException;
import dev.tokenmeter.ledger.Ledgers;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What {@code proxy drift} and {@code proxy export-workload} share: the ledger they read, the
 * clock "now" comes from, the environment (PGPASSWORD) and the output.
 */
abstract class ProxyLedgerReader implements Callable<Integer> {
  @Option(names = "--ledger", defaultValue = ProxyCommand.DEFAULT_LEDGER, paramLabel = "FILE|URL",
      description = "The proxy's ledger (default: ${DEFAULT-VALUE}), or jdbc:postgresql://host:port/db.")
  String ledger;

  @Spec CommandSpec spec;

  final InstantSource clock;
  final Map<String, String> env;

  ProxyLedgerReader(InstantSource clock, Map<String, String> env) {
    this.clock = clock;
    this.env = env;
  }

  /** The existing ledger; one that cannot be opened is one line. */
  Ledger open() {
    try {
      return Ledgers.openExisting(ledger, env);
    } catch (LedgerException e) {
      throw new UsageException(e.getMessage());
    }
  }

  UsageException emptyWindow(Instant from) {
    return new UsageException("no completed request in the ledger " + ledger + " since " + from
        + "; widen --since (e.g. --since 7d) or name the ledger the proxy writes with --ledger");
  }
}
