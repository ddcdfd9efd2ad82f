package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerWriter;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.ledger.PromptBlocks;
import dev.tokenmeter.workload.Trace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code proxy export-trace} over a ledger written here: what it writes and leaves out; its bad input. */
class ProxyExportTraceCommandTest {
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");
  @TempDir Path dir;

  private CommandHarness.Run export(String... args) {
    return CommandHarness.run(new ProxyExportTraceCommand(InstantSource.fixed(NOW), Map.of()), args);
  }

  private static MeteredRequest request(long atMillis, String upstream, ErrorClass error, int in, int out,
      String conversation, PromptBlocks blocks) {
    return new MeteredRequest("r" + atMillis, atMillis, "acme", "llama", upstream, "/v1/chat/completions", true,
        error == null ? 200 : 500, error, error == null ? null : "boom", "stop", in, out, TokenCountSource.USAGE, 0,
        0, 1000, 10_000_000, 1e6, 50_000_000, -1, -1, -1, out, 0, Double.NaN, null, conversation, blocks);
  }

  @Test
  void theWindowsCompletedRequestsBecomeATraceBenchReads() throws Exception {
    Path ledger = dir.resolve("ledger.db");
    long t = NOW.minusSeconds(600).toEpochMilli();
    Ledger l = Ledgers.open(ledger.toString(), Map.of());
    try (LedgerWriter w = l.writer()) {
      // 512 hashed characters for 128 tokens: 4 a token, so 256-character blocks are 64 tokens
      w.accept(request(t, "vllm", null, 128, 10, "user-7", new PromptBlocks(new long[] {11, 12}, 512, 256)));
      w.accept(request(t + 250, "vllm", ErrorClass.HTTP_5XX, -1, -1, "user-7", new PromptBlocks(new long[] {11}, 300, 256)));
      w.accept(request(t + 400, MeteredRequest.NO_UPSTREAM, ErrorClass.HTTP_4XX, -1, -1, null, null));
      w.accept(request(t + 1000, "vllm", null, 192, 7, "user-7", new PromptBlocks(new long[] {11, 12, 13}, 768, 256)));
      w.accept(request(t + 1500, "vllm", null, 40, 3, null, null));
      w.accept(request(NOW.minusSeconds(7200).toEpochMilli(), "vllm", null, 40, 3, null, null)); // before the window
    }
    Path out = dir.resolve("trace.jsonl");
    CommandHarness.Run r = export("--ledger", ledger.toString(), "--since", "1h", "--out", out.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("wrote " + out + ": 3 requests since 2026-11-25T11:00:00Z in 1 sessions; left out 1"
        + " failed and 0 without token counts")
        .contains("blocks of 64 tokens (256 characters at 4.00 characters per token): 3 distinct, 5 references, 40%"
            + " of them repeats");
    assertThat(Files.readAllLines(out)).containsExactly(
        "{\"at_ms\":0,\"input_tokens\":128,\"output_tokens\":10,\"hash_ids\":[0,1],\"block_tokens\":64,\"session\":\"s1\",\"turn\":1}",
        "{\"at_ms\":1000,\"input_tokens\":192,\"output_tokens\":7,\"hash_ids\":[0,1,2],\"block_tokens\":64,\"session\":\"s1\",\"turn\":2}",
        "{\"at_ms\":1500,\"input_tokens\":40,\"output_tokens\":3}");
    Trace trace = Trace.read(out, null, 0);
    assertThat(trace.blockTokens()).isEqualTo(64);
    assertThat(trace.records()).hasSize(3);
  }

  @Test
  void anEmptyWindowOrAMissingLedgerIsOneLineAndExit2() {
    Path ledger = dir.resolve("ledger.db");
    Ledger l = Ledgers.open(ledger.toString(), Map.of());
    try (LedgerWriter w = l.writer()) {
      w.accept(request(NOW.minusSeconds(7200).toEpochMilli(), "vllm", null, 40, 3, null, null));
    }
    Path out = dir.resolve("trace.jsonl");
    CommandHarness.Run empty = export("--ledger", ledger.toString(), "--since", "1h", "--out", out.toString());
    assertThat(empty.exit()).isEqualTo(Main.EXIT_USAGE);
    assertThat(empty.err().strip()).startsWith("tokenmeter: no completed request in the ledger " + ledger
        + " since 2026-11-25T11:00:00Z; widen --since").doesNotContain("\n");
    assertThat(out).doesNotExist();
    CommandHarness.Run missing = export("--ledger", dir.resolve("nope.db").toString(), "--out", out.toString());
    assertThat(missing.exit()).isEqualTo(Main.EXIT_USAGE);
    assertThat(missing.err().strip()).doesNotContain("\n").doesNotContain("Exception");
  }
}
