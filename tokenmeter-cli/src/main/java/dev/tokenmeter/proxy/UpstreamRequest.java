package dev.tokenmeter.proxy;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;

/** The request the proxy sends upstream for a client's request. Stateless. */
final class UpstreamRequest {
  private UpstreamRequest() {}

  /**
   * The client's method, target and headers, less the hop-by-hop ones and {@code Expect} (the
   * proxy already took the whole body), with {@code Host} the upstream's, {@code Content-Length}
   * that of {@code body}, {@code x-request-id} when the client sent none, and the upstream's own
   * key in {@code Authorization} when it has one.
   */
  static DefaultFullHttpRequest of(HttpRequest request, byte[] body, Upstream target, String requestId) {
    HttpHeaders h = HopByHop.strip(request.headers().copy());
    h.remove(HttpHeaderNames.EXPECT);
    h.set(HttpHeaderNames.HOST, target.hostHeader());
    if (body.length > 0 || request.headers().contains(HttpHeaderNames.CONTENT_LENGTH)) {
      h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    }
    if (!h.contains("x-request-id")) {
      h.set("x-request-id", requestId);
    }
    if (target.apiKeyOrNull() != null) {
      h.remove("api-key");
      h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + target.apiKeyOrNull());
    }
    return new DefaultFullHttpRequest(
        HttpVersion.HTTP_1_1, request.method(), request.uri(), Unpooled.wrappedBuffer(body), h,
        EmptyHttpHeaders.INSTANCE);
  }
}
