package dev.tokenmeter.client;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tokenmeter.testkit.FuzzRuns;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chunk parser under Jazzer: any SSE data payload and any non-streamed response body. The only
 * exception allowed out is {@link ProtocolException} (not JSON, not an OpenAI chunk); anything else
 * escaping is a finding. Seeds in ChunkParserFuzzITInputs/ are payloads of the stream transcripts
 * in src/test/resources/transcripts; docs/RELIABILITY.md says how to fuzz.
 */
@ExtendWith(FuzzRuns.class)
class ChunkParserFuzzIT {
  @FuzzTest(maxDuration = "3s")
  void payload(FuzzedDataProvider in) {
    FuzzRuns.one(ChunkParserFuzzIT.class);
    boolean body = in.consumeBoolean();
    byte[] bytes = in.consumeRemainingAsBytes();
    ChunkParser p = new ChunkParser();
    try {
      if (body) {
        p.parseResponse(bytes, 0, bytes.length, item -> {});
      } else {
        p.parse(bytes, 0, bytes.length, item -> {});
      }
    } catch (ProtocolException expected) {
      // documented: the payload is not a chunk
    }
  }
}
