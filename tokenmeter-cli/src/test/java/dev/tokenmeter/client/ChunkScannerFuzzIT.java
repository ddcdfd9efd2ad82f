package dev.tokenmeter.client;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tokenmeter.testkit.FuzzRuns;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The in-place chunk scanner against the full parser under Jazzer: for any payload, the scanner
 * either declines (delivering nothing) or yields exactly the full parser's items, and then the full
 * parser accepts the payload too ({@link ChunkScannerTest#compare}). Seeds in
 * ChunkScannerFuzzITInputs/ are the payloads of the stream transcripts, as for ChunkParserFuzzIT;
 * docs/RELIABILITY.md says how to fuzz.
 */
@ExtendWith(FuzzRuns.class)
class ChunkScannerFuzzIT {
  @FuzzTest(maxDuration = "3s")
  void payload(FuzzedDataProvider in) {
    FuzzRuns.one(ChunkScannerFuzzIT.class);
    int offset = in.consumeInt(0, 3); // the payload inside a larger array, as the framer holds it
    byte[] bytes = in.consumeRemainingAsBytes();
    byte[] framed = new byte[bytes.length + 2 * offset];
    java.util.Arrays.fill(framed, (byte) '}');
    System.arraycopy(bytes, 0, framed, offset, bytes.length);
    ChunkScannerTest.compare(framed, offset, bytes.length);
  }
}
