package dev.tokenmeter.cli;

import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.PromptBlocks;
import dev.tokenmeter.workload.TraceExport;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tokenmeter proxy export-trace}: the ledger's traffic as a trace that bench and simulate replay. */
@Command(
    name = "export-trace",
    mixinStandardHelpOptions = true,
    description = {
      "Writes the proxy's traffic in a window of its ledger as a trace that bench and simulate replay.",
      "The trace is tokenmeter's JSONL format, for 'bench --trace' and 'simulate --trace'. Each completed request: its arrival (at_ms after the first), input and output tokens, its prompt's blocks as hash_ids (from the keyed hashes the proxy took at admission, renumbered; never the text), block_tokens, and its conversation as session and turn (docs/PROXY.md, Capturing a trace; docs/TRACES.md)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter proxy export-trace --ledger tokenmeter-ledger.db --since 24h --out trace.jsonl"
    })
final class ProxyExportTraceCommand extends ProxyLedgerReader {
  @Option(names = "--since", defaultValue = "24h", paramLabel = "WHEN",
      description = "Start of the window: 30m, 24h, 7d, 2026-11-24 or 2026-11-24T08:00:00Z. Default: ${DEFAULT-VALUE}.")
  String since;

  @Option(names = "--out", required = true, paramLabel = "FILE", description = "Where the trace goes (e.g. trace.jsonl).")
  Path out;

  ProxyExportTraceCommand() {
    this(InstantSource.system(), System.getenv());
  }

  /** For tests: a fixed "now" and environment. */
  ProxyExportTraceCommand(InstantSource clock, Map<String, String> env) {
    super(clock, env);
  }

  @Override
  public Integer call() {
    Instant from = ProxyUsageCommand.parseSince(since, clock.instant());
    Ledger ledger = open();
    TraceExport export = new TraceExport();
    long[] completed = {0};
    ledger.trace(from, r -> {
      if (r.ok()) {
        completed[0]++;
        PromptBlocks b = r.blocksOrNull();
        if (b != null) {
          export.measure(r.inputTokens(), b.chars(), b.blockChars());
        }
      }
    });
    if (completed[0] == 0) {
      throw emptyWindow(from);
    }
    TraceExport.Writer w;
    Path abs = out.toAbsolutePath();
    try {
      Path tmp = Files.createTempFile(abs.getParent(), ".trace", ".tmp");
      try (BufferedWriter file = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        w = export.writer(file);
        TraceExport.Writer writer = w;
        ledger.trace(from, r -> {
          PromptBlocks b = r.blocksOrNull();
          writer.add(r.startedAtEpochMillis(), r.ok(), r.inputTokens(), r.outputTokens(), r.conversation(),
              b == null ? null : b.hashes(), b == null ? 0 : b.blockChars());
        });
      }
      if (w.written() == 0) {
        Files.deleteIfExists(tmp);
        throw new UsageException("no completed request in the ledger " + ledger.target().display() + " since " + from
            + " has its input and output token counts (the upstream sent no usage and the proxy had no tokenizer):"
            + " nothing to replay");
      }
      Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | UncheckedIOException e) {
      throw new UsageException("--out " + out + ": cannot write it (" + e.getMessage() + "); name a writable file");
    }
    PrintWriter p = spec.commandLine().getOut();
    p.println(String.format(Locale.ROOT, "wrote %s: %d requests since %s in %d sessions; left out %d failed and %d"
        + " without token counts", out, w.written(), from, w.sessions(), w.failed(), w.unknownLengths()));
    p.println(w.blockTokens() == 0
        ? "no prompt blocks: the proxy captured none in this window (trace capture off, or rows from before it)"
        : String.format(Locale.ROOT, "blocks of %d tokens (%d characters at %.2f characters per token): %d distinct,"
            + " %d references, %.0f%% of them repeats", w.blockTokens(), export.blockChars(), export.charsPerToken(),
            w.distinctBlocks(), w.blockReferences(),
            w.blockReferences() == 0 ? 0.0 : 100.0 * (w.blockReferences() - w.distinctBlocks()) / w.blockReferences()));
    p.flush();
    return Main.EXIT_OK;
  }
}
