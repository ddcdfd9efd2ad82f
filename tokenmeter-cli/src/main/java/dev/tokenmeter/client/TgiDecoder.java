package dev.tokenmeter.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.util.function.Consumer;

/**
 * Hugging Face TGI's native {@code /generate_stream} (huggingface.co/docs/text-generation-inference,
 * the OpenAPI schema's {@code StreamResponse}): one event per token, {@code {"index":…,"token":
 * {"id":…,"text":…,"logprob":…,"special":…},"generated_text":null,"details":null}}; the last token's
 * event carries {@code generated_text} and {@code details} ({@code finish_reason}, {@code
 * generated_tokens}, and on recent versions {@code input_length}). No terminator event: the stream
 * ends with the body. An error is {@code {"error":…,"error_type":…}}.
 *
 * <p>A special token (EOS, {@code "special": true}) is counted by TGI in {@code generated_tokens}
 * but its text is not answer text. {@code finish_reason}: {@code length} stays, {@code eos_token}
 * and {@code stop_sequence} are "stop". Non-streamed ({@code /generate}): {@code generated_text}
 * and {@code details}.
 */
final class TgiDecoder implements StreamDecoder {

  @Override
  public void event(String eventType, byte[] b, int offset, int length, Consumer<StreamItem> out) {
    JsonNode e = WireJson.object(b, offset, length, Api.TGI);
    if (error(e, out)) {
      return;
    }
    JsonNode token = e.get("token");
    if (token == null || !token.isObject()) {
      throw WireJson.notThisApi("not a TGI stream event: no token", e, Api.TGI, b, offset, length);
    }
    String text = WireJson.text(token, "text");
    if (text != null && !token.path("special").asBoolean(false)) {
      out.accept(new StreamItem.Text(text, TextKind.CONTENT));
    }
    details(e.path("details"), out);
  }

  @Override
  public void body(byte[] b, int offset, int length, Consumer<StreamItem> out) {
    JsonNode parsed = parseBody(b, offset, length);
    JsonNode r = parsed.isArray() && parsed.size() == 1 ? parsed.get(0) : parsed; // the TGI-compatible route's list
    if (error(r, out)) {
      return;
    }
    if (!r.path("generated_text").isTextual()) {
      throw WireJson.notThisApi("not a TGI response: no generated_text", r, Api.TGI, b, offset, length);
    }
    String text = WireJson.text(r, "generated_text");
    if (text != null) {
      out.accept(new StreamItem.Text(text, TextKind.CONTENT));
    }
    details(r.path("details"), out);
  }

  private static JsonNode parseBody(byte[] b, int offset, int length) {
    if (length > 0 && b[offset] == '[') {
      try {
        return WireJson.MAPPER.readTree(b, offset, length);
      } catch (java.io.IOException e) {
        throw new ProtocolException("malformed JSON: " + e.getMessage(), b, offset, length, e);
      }
    }
    return WireJson.object(b, offset, length, Api.TGI);
  }

  private static boolean error(JsonNode e, Consumer<StreamItem> out) {
    JsonNode error = e.get("error");
    if (error == null || error.isNull()) {
      return false;
    }
    out.accept(new StreamItem.ErrorEvent(error.asText(""), e.path("error_type").asText(null), null));
    return true;
  }

  private static void details(JsonNode details, Consumer<StreamItem> out) {
    if (!details.isObject()) {
      return;
    }
    String reason = details.path("finish_reason").asText(null);
    if (reason != null) {
      out.accept(new StreamItem.Finish(reason.equals("length") ? "length" : "stop"));
    }
    int generated = WireJson.count(details, "generated_tokens");
    if (generated >= 0) {
      out.accept(usage(details).item());
    }
  }

  /** input = {@code details.input_length} (when sent), output = {@code details.generated_tokens}. */
  static ApiUsage usage(JsonNode details) {
    return new ApiUsage(WireJson.count(details, "input_length"), WireJson.count(details, "generated_tokens"), -1, -1);
  }
}
