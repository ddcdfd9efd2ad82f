package dev.tokenmeter.client;

import dev.tokenmeter.core.engine.Exchange;
import dev.tokenmeter.core.engine.ExchangeListener;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.sse.SseException;
import dev.tokenmeter.sse.SseFramer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One request/response on one connection, on the endpoint's loop.
 *
 * <p>Body modes: a {@code text/event-stream} body goes through the SSE framer and the API's {@link
 * StreamDecoder} as it arrives; a newline-delimited JSON body (Ollama's {@code
 * application/x-ndjson}) through the {@link LineFramer} and the decoder; an {@code
 * application/json} 200 body (a non-streamed response, or a server that
 * ignored {@code stream}) is collected and parsed at its end; a non-2xx body is collected (bounded)
 * for the error message.
 *
 * <p>End rules: {@code [DONE]} (or the API's end event: {@link StreamItem.Done}) ends the exchange at once (the connection drains the rest of the
 * body and then goes back to the pool); the end of the body without {@code [DONE]} completes it if
 * a {@code finish_reason} was seen, else it is {@link Outcome.Truncated}; an error object in the
 * stream makes it {@link Outcome.StreamError} when the body ends.
 */
final class ClientExchange implements Exchange, Consumer<StreamItem> {
  private static final int MAX_ERROR_BODY = 2048;
  private static final int MAX_JSON_BODY = 64 << 20;

  private enum Mode {
    AWAIT_HEADERS,
    SSE,
    LINES,
    JSON,
    ERROR_BODY,
    IGNORE
  }

  private final ApiEndpoint endpoint;
  private final RequestSpec spec;
  private final ExchangeListener listener;
  private Channel channel;
  private ConnectionHandler handler;
  private Mode mode = Mode.AWAIT_HEADERS;
  private boolean reused;
  private boolean ended;
  private boolean anyResponse;
  private boolean keepAlive;
  private int status;
  private String contentType = "";
  private SseFramer framer;
  private LineFramer lines;
  private final StreamDecoder decoder;
  private ByteArrayOutputStream body;
  private long nowNanos;
  private boolean sawFinish;
  private String finishReason;
  private Outcome pendingFailure;

  ClientExchange(ApiEndpoint endpoint, RequestSpec spec, ExchangeListener listener) {
    this.endpoint = endpoint;
    this.spec = spec;
    this.listener = listener;
    this.decoder = endpoint.decoder();
  }

  ExchangeListener listener() {
    return listener;
  }

  boolean isEnded() {
    return ended;
  }

  void begin(Channel ch, boolean reused) {
    this.channel = ch;
    this.reused = reused;
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
              } else if (this.reused && !anyResponse) {
                // The pooled connection was closed by the server before our bytes left: nothing
                // reached it, so sending again on a fresh connection cannot duplicate work.
                handler.detach();
                ch.close();
                this.reused = false;
                endpoint.connect(this);
              } else {
                fail(new Outcome.Truncated("write failed: " + message(f.cause())), endpoint.tickerNanos());
              }
            });
  }

  void onHeaders(HttpResponse resp, long nanos) {
    anyResponse = true;
    status = resp.status().code();
    keepAlive = HttpUtil.isKeepAlive(resp);
    String ct = resp.headers().get(HttpHeaderNames.CONTENT_TYPE);
    contentType = ct == null ? "" : ct.toLowerCase(Locale.ROOT);
    listener.headers(status, nanos);
    if (status < 200 || status >= 300) {
      mode = Mode.ERROR_BODY;
      body = new ByteArrayOutputStream();
    } else if (contentType.startsWith("text/event-stream")) {
      mode = Mode.SSE;
      framer = handler.sseFramer();
    } else if (endpoint.api().lineDelimited() && isLineDelimited()) {
      mode = Mode.LINES;
      lines = new LineFramer(this::onLine);
    } else if (contentType.startsWith("application/json") || contentType.isEmpty()) {
      mode = Mode.JSON;
      body = new ByteArrayOutputStream();
    } else {
      mode = Mode.IGNORE;
      fail(
          new Outcome.ProtocolError(
              "expected " + (endpoint.api().lineDelimited() ? "application/x-ndjson" : "text/event-stream")
                  + " or application/json, got content-type '" + ct + "': does --url speak --api "
                  + endpoint.api().wireName() + "?"),
          nanos);
    }
  }

  void onContent(ByteBuf content, long nanos) {
    int n = content.readableBytes();
    if (n == 0 || ended) {
      return;
    }
    anyResponse = true;
    nowNanos = nanos;
    switch (mode) {
      case SSE, LINES -> {
        byte[] scratch = endpoint.readScratch(n);
        content.getBytes(content.readerIndex(), scratch, 0, n);
        try {
          if (mode == Mode.SSE) {
            framer.feed(scratch, 0, n);
          } else {
            lines.feed(scratch, 0, n);
          }
        } catch (SseException | ProtocolException e) {
          protocolError(e.getMessage(), nanos);
        }
      }
      case JSON -> {
        if (body.size() + n > MAX_JSON_BODY) {
          protocolError("response body larger than " + (MAX_JSON_BODY >> 20) + " MiB", nanos);
          return;
        }
        append(content, n);
      }
      case ERROR_BODY -> {
        int room = MAX_ERROR_BODY - body.size();
        if (room > 0) {
          append(content, Math.min(room, n));
        }
      }
      case IGNORE, AWAIT_HEADERS -> {}
    }
  }

  private void append(ByteBuf content, int n) {
    byte[] scratch = endpoint.readScratch(n);
    content.getBytes(content.readerIndex(), scratch, 0, n);
    body.write(scratch, 0, n);
  }

  /** One SSE event, its data lent by the framer for the length of the call. */
  void onEvent(String type, byte[] data, int offset, int length) {
    if (ended) {
      return;
    }
    decoder.event(type, data, offset, length, this);
  }

  private void onLine(byte[] bytes, int offset, int length) {
    if (!ended) {
      decoder.event(null, bytes, offset, length, this);
    }
  }

  /**
   * Ollama streams {@code application/x-ndjson}; a streamed request answered as {@code
   * application/json} (or untyped) is read line by line too, as Ollama's clients do.
   */
  private boolean isLineDelimited() {
    return contentType.startsWith("application/x-ndjson")
        || contentType.startsWith("application/jsonl")
        || (endpoint.streaming() && (contentType.startsWith("application/json") || contentType.isEmpty()));
  }

  @Override
  public void accept(StreamItem item) {
    if (ended) {
      return;
    }
    listener.item(item, nowNanos);
    switch (item) {
      case StreamItem.Finish f -> {
        sawFinish = true;
        finishReason = f.reason();
      }
      case StreamItem.ErrorEvent e ->
          pendingFailure = Outcome.streamError(e.message());
      case StreamItem.Done d -> {
        handler.drain();
        finish(pendingFailure != null ? pendingFailure : Outcome.ended(finishReason), nowNanos, false);
      }
      default -> {}
    }
  }

  void onLast(long nanos) {
    if (ended) {
      return;
    }
    nowNanos = nanos;
    switch (mode) {
      case SSE, LINES -> {
        boolean partial = mode == Mode.SSE ? framer.hasPartialEvent() : lines.hasPartialLine();
        Outcome o;
        if (pendingFailure != null) {
          o = pendingFailure;
        } else if (sawFinish && !partial) {
          o = Outcome.ended(finishReason);
        } else {
          o = new Outcome.Truncated(mode == Mode.SSE
              ? "stream ended without [DONE] or finish_reason" : "stream ended without a \"done\": true line");
        }
        finish(o, nanos, true);
      }
      case JSON -> {
        byte[] b = body.toByteArray();
        try {
          decoder.body(b, 0, b.length, this);
        } catch (ProtocolException e) {
          protocolError(e.getMessage(), nanos);
          return;
        }
        if (!ended) {
          finish(pendingFailure != null ? pendingFailure : Outcome.ended(finishReason), nanos, true);
        }
      }
      case ERROR_BODY ->
          finish(new Outcome.HttpError(status, body.toString(StandardCharsets.UTF_8).strip()), nanos, true);
      case IGNORE, AWAIT_HEADERS -> fail(new Outcome.ProtocolError("empty response"), nanos);
    }
  }

  void onClosed(long nanos) {
    if (ended) {
      return;
    }
    fail(
        new Outcome.Truncated(
            anyResponse ? "connection closed mid-response" : "connection closed before any response"),
        nanos);
  }

  void onTransportError(Throwable cause, long nanos) {
    if (!ended) {
      fail(new Outcome.Truncated("connection error: " + message(cause)), nanos);
    }
  }

  void protocolError(String message, long nanos) {
    fail(new Outcome.ProtocolError(message), nanos);
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
      if (keepAlive) {
        endpoint.release(channel);
      } else {
        channel.close();
      }
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
