package dev.tokenmeter.client;

import dev.tokenmeter.core.request.StreamItem;
import java.util.function.Consumer;

/**
 * Chat and completions: {@link ChunkParser}, whose failures name the API a payload looks like when
 * it is another one.
 */
final class OpenAiDecoder implements StreamDecoder {
  private final ChunkParser parser;

  OpenAiDecoder(ChunkParser parser) {
    this.parser = parser;
  }

  @Override
  public void event(String eventType, byte[] data, int offset, int length, Consumer<StreamItem> out) {
    try {
      parser.parse(data, offset, length, out);
    } catch (ProtocolException e) {
      throw WireJson.withHint(e, Api.CHAT, data, offset, length);
    }
  }

  @Override
  public void body(byte[] data, int offset, int length, Consumer<StreamItem> out) {
    try {
      parser.parseResponse(data, offset, length, out);
    } catch (ProtocolException e) {
      throw WireJson.withHint(e, Api.CHAT, data, offset, length);
    }
  }
}
