package dev.tokenmeter.proxy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The responses the proxy writes itself (502, 401, 400): OpenAI-style error bodies. Stateless. */
final class Responses {
  private static final JsonFactory JSON = JsonFactory.builder().build();

  private Responses() {}

  /**
   * {@code {"error":{"message":...,"type":...,"param":null,"code":...}}}, the shape OpenAI's API
   * and its SDKs use, with {@code Content-Length} and {@code Connection: close} when {@code
   * keepAlive} is false.
   */
  static FullHttpResponse error(
      int status, String message, String type, String code, String requestId, boolean keepAlive) {
    byte[] body = errorBody(message, type, code);
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(body));
    r.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    if (requestId != null) {
      r.headers().set("x-request-id", requestId);
    }
    if (!keepAlive) {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    return r;
  }

  /** 503 {@code overloaded} with {@code Retry-After}: the proxy's own limits are full (docs/PROXY.md, "At the edge"). */
  static FullHttpResponse overloaded(String message, long retryAfterSeconds, String requestId, boolean keepAlive) {
    FullHttpResponse r = error(503, message, "server_error", "overloaded", requestId, keepAlive);
    r.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(retryAfterSeconds));
    return r;
  }

  static byte[] errorBody(String message, String type, String code) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeObjectFieldStart("error");
      g.writeStringField("message", message);
      g.writeStringField("type", type);
      g.writeNullField("param");
      g.writeStringField("code", code);
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
