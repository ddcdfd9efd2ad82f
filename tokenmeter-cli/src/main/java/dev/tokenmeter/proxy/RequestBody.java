package dev.tokenmeter.proxy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/**
 * What the proxy reads from a request body, and the one change it may make to it.
 *
 * <p>The body is read as a JSON tree only to find {@code model}, {@code stream} and {@code
 * stream_options.include_usage}; it is forwarded as received unless {@link #withUsage()} is used.
 * That rewrite sets {@code stream_options.include_usage: true} and keeps every other member, in
 * order, with numbers exactly as written (big decimals, no float rounding), so the upstream reads
 * the same request plus one option. A body that is not a JSON object yields {@link #opaque}.
 *
 * @param model the {@code model} string, or null
 * @param stream whether {@code stream: true}
 * @param clientAskedUsage whether the client itself set {@code stream_options.include_usage: true}
 * @param treeOrNull the parsed object, null when the body is not a JSON object
 */
record RequestBody(String model, boolean stream, boolean clientAskedUsage, ObjectNode treeOrNull) {

  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
          .build();

  static final RequestBody OPAQUE = new RequestBody(null, false, false, null);

  /** The body of a request, read leniently: anything but a JSON object is {@link #OPAQUE}. */
  static RequestBody parse(byte[] body) {
    if (body.length == 0) {
      return OPAQUE;
    }
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      return OPAQUE;
    }
    if (!(root instanceof ObjectNode object)) {
      return OPAQUE;
    }
    JsonNode model = object.get("model");
    JsonNode stream = object.get("stream");
    JsonNode usage = object.path("stream_options").path("include_usage");
    return new RequestBody(
        model != null && model.isTextual() ? model.asText() : null,
        stream != null && stream.isBoolean() && stream.asBoolean(),
        usage.isBoolean() && usage.asBoolean(),
        object);
  }

  /**
   * Whether the request asks for a stream: {@code stream: true}, or, for a line-delimited API
   * (Ollama, whose {@code stream} defaults to true), no {@code stream: false}. An unread body counts
   * as a stream for such an API.
   */
  boolean streams(Route route) {
    if (stream) {
      return true;
    }
    if (!route.lineDelimited()) {
      return false;
    }
    return treeOrNull == null || !treeOrNull.has("stream") || !treeOrNull.get("stream").isBoolean();
  }

  /** Whether asking for usage on the client's behalf applies: a stream that did not ask. */
  boolean canAddUsage() {
    return treeOrNull != null
        && stream
        && !clientAskedUsage
        && (!treeOrNull.has("stream_options") || treeOrNull.get("stream_options").isObject()
            || treeOrNull.get("stream_options").isNull());
  }

  /** The body with {@code stream_options.include_usage: true}, every other member unchanged. */
  byte[] withUsage() {
    ObjectNode copy = treeOrNull.deepCopy();
    JsonNode options = copy.get("stream_options");
    ObjectNode o = options instanceof ObjectNode existing ? existing : copy.putObject("stream_options");
    o.put("include_usage", true);
    try {
      return JSON.writeValueAsBytes(copy);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a parsed tree always serializes", e);
    }
  }
}
