package dev.tokenmeter.client;

import dev.tokenmeter.core.loadgen.Exchange;
import dev.tokenmeter.core.loadgen.ExchangeListener;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.StreamItem;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import java.util.Locale;

/**
 * One request/response on one connection, on the endpoint's loop: the transport around the one
 * {@link ResponseReader} (body modes, end rules and outcomes are the reader's, shared with the
 * proxy). Here: sending, the stale pooled connection sent again, and what becomes of the
 * connection when the response ends: back to the pool after a clean body end, drained and then
 * pooled after the API's end event ({@code [DONE]}), closed after a failure.
 */
final class ClientExchange implements Exchange, ResponseReader.Listener {
  private final ApiEndpoint endpoint;
  private final RequestSpec spec;
  private final ExchangeListener listener;
  private final ResponseReader reader;
  private Channel channel;
  private ConnectionHandler handler;
  private final StaleResend resend = new StaleResend();
  private boolean ended;
  private boolean keepAlive;

  ClientExchange(ApiEndpoint endpoint, RequestSpec spec, ExchangeListener listener) {
    this.endpoint = endpoint;
    this.spec = spec;
    this.listener = listener;
    this.reader = new ResponseReader(endpoint.api(), endpoint.decoder(), endpoint.streaming(),
        () -> handler.sseFramer(), this);
  }

  ExchangeListener listener() {
    return listener;
  }

  boolean isEnded() {
    return ended;
  }

  void begin(Channel ch, boolean reused) {
    this.channel = ch;
    resend.sending(reused);
    this.handler = (ConnectionHandler) ch.pipeline().get("exchange");
    handler.attach(this);
    ch.writeAndFlush(endpoint.newRequest(spec))
        .addListener(
            f -> {
              if (ended) {
                return;
              }
              if (f.isSuccess()) {
                listener.sent(endpoint.tickerNanos());
              } else if (resend.afterWriteFailure()) {
                // The pooled connection was closed by the server before our bytes left: nothing
                // reached it, so sending again on a fresh connection cannot duplicate work.
                handler.detach();
                ch.close();
                endpoint.connect(this);
              } else {
                fail(new Outcome.Truncated("write failed: " + message(f.cause())), endpoint.tickerNanos());
              }
            });
  }

  void onHeaders(HttpResponse resp, long nanos) {
    int status = resp.status().code();
    resend.responded();
    keepAlive = HttpUtil.isKeepAlive(resp);
    String ct = resp.headers().get(HttpHeaderNames.CONTENT_TYPE);
    listener.headers(status, nanos);
    reader.headers(status, ct == null ? "" : ct.toLowerCase(Locale.ROOT), nanos);
  }

  void onContent(ByteBuf content, long nanos) {
    int n = content.readableBytes();
    if (n == 0 || ended) {
      return;
    }
    byte[] scratch = endpoint.readScratch(n);
    content.getBytes(content.readerIndex(), scratch, 0, n);
    reader.content(scratch, 0, n, nanos);
  }

  /** One SSE event, its data lent by the framer for the length of the call. */
  void onEvent(String type, byte[] data, int offset, int length) {
    reader.event(type, data, offset, length);
  }

  @Override
  public void item(StreamItem item, long nanos) {
    listener.item(item, nanos);
  }

  @Override
  public void end(Outcome outcome, long nanos, ResponseReader.End how) {
    switch (how) {
      case BODY_END -> finish(outcome, nanos, true);
      case END_EVENT -> {
        handler.drain();
        finish(outcome, nanos, false);
      }
      case FAILED -> fail(outcome, nanos);
    }
  }

  void onLast(long nanos) {
    reader.bodyEnd(nanos);
  }

  void onClosed(long nanos) {
    reader.closed(nanos);
  }

  void onTransportError(Throwable cause, long nanos) {
    reader.fail(new Outcome.Truncated("connection error: " + message(cause)), nanos);
  }

  void protocolError(String message, long nanos) {
    reader.fail(new Outcome.ProtocolError(message), nanos);
  }

  @Override
  public void abort(Outcome outcome) {
    fail(outcome, endpoint.tickerNanos());
  }

  /** Ends with a failure and closes the connection (its state is unknown). */
  private void fail(Outcome outcome, long nanos) {
    if (ended) {
      return;
    }
    if (handler != null) {
      handler.detach();
    }
    if (channel != null) {
      channel.close();
    }
    end(outcome, nanos);
  }

  /** Ends normally; {@code bodyComplete} says whether the connection is clean for reuse. */
  private void finish(Outcome outcome, long nanos, boolean bodyComplete) {
    if (ended) {
      return;
    }
    if (bodyComplete) {
      handler.detach();
      endpoint.release(channel, keepAlive);
    } else if (!keepAlive) {
      handler.detach();
      channel.close();
    }
    end(outcome, nanos);
  }

  void end(Outcome outcome, long nanos) {
    if (ended) {
      return;
    }
    ended = true;
    listener.end(outcome, nanos);
  }

  private static String message(Throwable t) {
    if (t == null) {
      return "unknown error";
    }
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }
}
