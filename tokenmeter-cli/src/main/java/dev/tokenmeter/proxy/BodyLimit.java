package dev.tokenmeter.proxy;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;

/**
 * The request body limit ({@link ProxyConfig#maxRequestBytes()}): Netty's aggregator, whose own
 * answer to a body over it is an empty 413, hands the request to {@link FrontHandler} instead,
 * which answers with an OpenAI-style 413 body, records a ledger row and closes the connection. A
 * {@code Content-Length} over the limit is refused as its headers arrive, nothing of its body
 * kept; a chunked body once the limit is passed, having held at most the limit. Event loop.
 */
final class BodyLimit extends HttpObjectAggregator {
  private final FrontHandler front;

  BodyLimit(int maxBytes, FrontHandler front) {
    super(maxBytes);
    this.front = front;
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext c, HttpMessage oversized) throws Exception {
    if (!(oversized instanceof HttpRequest req)) {
      super.handleOversizedMessage(c, oversized);
      return;
    }
    // the aggregator releases what it passes here: keep a copy of the head only
    front.tooLarge(new DefaultHttpRequest(req.protocolVersion(), req.method(), req.uri(), req.headers().copy()));
  }
}
