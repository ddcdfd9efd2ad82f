package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Metered rows become a tokenmeter trace that {@link Trace#read} reads back as they were. */
class TraceExportTest {
  @TempDir Path dir;

  @Test
  void rowsBecomeRecordsWithTokenBlocksRenumberedIdsAndAnonymousSessions() throws Exception {
    TraceExport export = new TraceExport();
    // 256-character blocks; 1,000 and 3,000 characters for 250 and 750 tokens: 4 characters a token.
    export.measure(250, 1000, 256);
    export.measure(750, 3000, 256);
    export.measure(10, 999, 64); // hashed with another block size: not the window's
    assertThat(export.blockChars()).isEqualTo(256);
    assertThat(export.blockTokens()).isEqualTo(Math.round(256 / ((1000 + 3000 + 999) / 1010.0)));
    TraceExport clean = new TraceExport();
    clean.measure(250, 1000, 256);
    clean.measure(750, 3000, 256);
    assertThat(clean.charsPerToken()).isEqualTo(4.0);
    assertThat(clean.blockTokens()).isEqualTo(64);

    StringWriter out = new StringWriter();
    TraceExport.Writer w = clean.writer(out);
    long t0 = 1_700_000_000_000L;
    long[] first = {0xa1, 0xa2, 0xa3, 0xa4};
    long[] second = {0xa1, 0xa2, 0xa3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbc};
    w.add(t0, true, 250, 40, "alice@example.com", first, 256);
    w.add(t0 + 5, false, 100, -1, "alice@example.com", first, 256);
    w.add(t0 + 120, true, 190, 3, null, new long[] {0xa1, 0xc2, 0xc3, 0xc4, 0xc5}, 256); // 190 tokens: 3 blocks
    w.add(t0 + 130, true, 80, -1, null, null, 0);
    w.add(t0 + 900, true, 750, 61, "alice@example.com", second, 256);
    w.add(t0 + 901, true, 30, 2, "bob", new long[] {0xd1}, 64);
    assertThat(w.written()).isEqualTo(4);
    assertThat(w.failed()).isEqualTo(1);
    assertThat(w.unknownLengths()).isEqualTo(1);
    assertThat(w.sessions()).isEqualTo(2);
    assertThat(out.toString()).doesNotContain("alice").doesNotContain("bob");

    Path f = dir.resolve("trace.jsonl");
    Files.writeString(f, out.toString());
    Trace t = Trace.read(f, null, 0);
    assertThat(t.format()).isEqualTo(TraceFormat.TOKENMETER);
    assertThat(t.blockTokens()).isEqualTo(64);
    assertThat(t.offsetsNanos()).containsExactly(0, 120_000_000L, 900_000_000L, 901_000_000L);
    assertThat(t.records()).extracting(Trace.Record::inputTokens).containsExactly(250, 190, 750, 30);
    assertThat(t.records()).extracting(Trace.Record::outputTokens).containsExactly(40, 3, 61, 2);
    assertThat(t.records()).extracting(Trace.Record::session).containsExactly("s1", null, "s1", "s2");
    assertThat(t.records()).extracting(Trace.Record::turn).containsExactly(1, 0, 2, 1);
    assertThat(t.records().get(0).hashIds()).containsExactly(0, 1, 2, 3);
    assertThat(t.records().get(1).hashIds()).containsExactly(0, 4, 5);
    // 750 tokens in 64-token blocks: 12 blocks, so all 12 hashes; the first three shared with record 0
    assertThat(t.records().get(2).hashIds()).containsExactly(0, 1, 2, 6, 7, 8, 9, 10, 11, 12, 13, 14);
    assertThat(t.records().get(3).hashIds()).isEmpty(); // hashed with 64-character blocks: not comparable
    assertThat(w.distinctBlocks()).isEqualTo(15);
    assertThat(w.blockReferences()).isEqualTo(19);
  }

  @Test
  void aWindowWithoutHashesHasNoBlocks() {
    TraceExport export = new TraceExport();
    assertThat(export.blockTokens()).isZero();
    assertThat(export.charsPerToken()).isNaN();
    StringWriter out = new StringWriter();
    TraceExport.Writer w = export.writer(out);
    w.add(5, true, 10, 2, null, new long[] {1}, 256);
    assertThat(out.toString().strip()).isEqualTo("{\"at_ms\":0,\"input_tokens\":10,\"output_tokens\":2}");
  }
}
