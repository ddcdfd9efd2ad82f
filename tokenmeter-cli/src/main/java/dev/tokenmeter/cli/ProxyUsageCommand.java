package dev.tokenmeter.cli;

import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerException;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.ledger.UsageQuery;
import dev.tokenmeter.ledger.UsageRender;
import dev.tokenmeter.ledger.UsageReport;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tokenmeter proxy usage}: what the metering proxy's ledger says about a window of traffic,
 * per tenant, model, upstream or UTC day. Wiring only: the ledger answers, {@link UsageRender}
 * prints.
 */
@Command(
    name = "usage",
    mixinStandardHelpOptions = true,
    description = {
      "Reads the metering proxy's ledger: requests, errors, tokens, latency and spend per tenant, model, upstream or day.",
      "Per row: requests, errors by class, tokens (in, out, reasoning, cached), TTFT and TPOT p50/p99, per-user decode TPS p50/p10 and spend, over a window up to now."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter proxy usage --since 1h --by model",
      "  tokenmeter proxy usage \\",
      "      --ledger 'jdbc:postgresql://db.internal:5432/tokenmeter?user=tokenmeter' \\",
      "      --since 7d --json"
    })
final class ProxyUsageCommand implements Callable<Integer> {
  private static final Pattern DAYS = Pattern.compile("(\\d+)d");

  @Option(
      names = "--ledger",
      defaultValue = ProxyCommand.DEFAULT_LEDGER,
      paramLabel = "FILE|URL",
      description = "The proxy's ledger: its SQLite file (default: ${DEFAULT-VALUE}), or jdbc:postgresql://host:port/db (password from the URL or PGPASSWORD).")
  String ledger;

  @Option(
      names = "--since",
      defaultValue = "24h",
      paramLabel = "WHEN",
      description = "Start of the window: a duration back from now (30m, 24h, 7d) or a UTC time (2026-11-24, 2026-11-24T08:00:00Z). Default: ${DEFAULT-VALUE}.")
  String since;

  @Option(names = "--tenant", paramLabel = "T", description = "Only this tenant.")
  String tenant;

  @Option(
      names = "--by",
      defaultValue = "tenant",
      paramLabel = "GROUP",
      description = "Rows per tenant, model, upstream, day (UTC), proxy (proxy_id: which proxy of a fleet wrote it) or conversation (the client's conversation key; one row each, so narrow the window). Default: ${DEFAULT-VALUE}.")
  String by;

  @ArgGroup(exclusive = true)
  Format format = new Format();

  static final class Format {
    @Option(names = "--json", description = "JSON instead of a table.")
    boolean json;

    @Option(names = "--csv", description = "CSV instead of a table.")
    boolean csv;
  }

  @Spec CommandSpec spec;

  private final InstantSource clock;
  private final Map<String, String> env;

  ProxyUsageCommand() {
    this(InstantSource.system(), System.getenv());
  }

  /** For tests: a fixed "now" and environment. */
  ProxyUsageCommand(InstantSource clock, Map<String, String> env) {
    this.clock = clock;
    this.env = env;
  }

  @Override
  public Integer call() {
    UsageQuery query = new UsageQuery(parseSince(since, clock.instant()), tenant, UsageQuery.GroupBy.parse(by));
    UsageReport report;
    try {
      Ledger l = Ledgers.openExisting(ledger, env);
      report = l.usage(query);
    } catch (LedgerException e) {
      throw new UsageException(e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(format.json ? UsageRender.json(report) : format.csv ? UsageRender.csv(report) : UsageRender.table(report));
    out.flush();
    return Main.EXIT_OK;
  }

  /**
   * The start of the window {@code text} names, relative to {@code now}: a duration ({@code 24h},
   * {@code 90m}, {@code 7d}), an ISO date (UTC midnight) or an ISO instant.
   *
   * @throws UsageException naming the accepted forms
   */
  static Instant parseSince(String text, Instant now) {
    String s = text.strip();
    Matcher days = DAYS.matcher(s);
    if (days.matches()) {
      return now.minus(java.time.Duration.ofDays(Long.parseLong(days.group(1))));
    }
    try {
      if (s.contains("T")) {
        return Instant.parse(s);
      }
      if (s.length() == 10 && s.charAt(4) == '-') {
        return LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant();
      }
      return now.minusNanos(Durations.parseNanos("--since", s));
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw new UsageException(
          "--since '" + text + "' is neither a duration nor a time; use e.g. 30m, 24h, 7d, 2026-11-24 or 2026-11-24T08:00:00Z");
    }
  }
}
