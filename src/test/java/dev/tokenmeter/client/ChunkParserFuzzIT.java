package dev.tokenmeter.client;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * The chunk parser under Jazzer: any SSE data payload and any non-streamed response body. The only
 * exception allowed out is {@link ProtocolException} (not JSON, not an OpenAI chunk); anything else
 * escaping is a finding. Seeds in ChunkParserFuzzITInputs/ are payloads of the stream transcripts
 * in src/test/resources/transcripts; docs/RELIABILITY.md says how to fuzz.
 */
class ChunkParserFuzzIT {
  @FuzzTest(maxDuration = "3s")
  void payload(FuzzedDataProvider in) {
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
