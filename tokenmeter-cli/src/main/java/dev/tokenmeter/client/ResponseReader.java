package dev.tokenmeter.client;

import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.sse.SseException;
import dev.tokenmeter.sse.SseFramer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One HTTP response of an LLM API read into {@link StreamItem}s and exactly one {@link Outcome}:
 * the one reader bench's client ({@code ClientExchange}) and the proxy's record path both use, so a
 * request measured by bench and the same request metered by the proxy give the same record. The
 * caller owns the transport (sockets, pools, threads) and feeds what it read: {@link #headers}, then
 * {@link #content} per read, then {@link #bodyEnd} or {@link #closed}.
 *
 * <p>Body modes, chosen from the status and content type: a {@code text/event-stream} body goes
 * through the SSE framer and the API's {@link StreamDecoder} as it arrives; a newline-delimited JSON
 * body (Ollama's {@code application/x-ndjson}, or {@code application/json} answering a streamed
 * request of a line-delimited API) through the {@link LineFramer} and the decoder; any other
 * {@code application/json} (or untyped) 2xx body is collected (64 MiB at most) and parsed at its
 * end; a non-2xx body is collected (2 KiB) for the error message. Without a decoder (a response
 * that carries no tokens: {@code /v1/models}) a 2xx body is not read.
 *
 * <p>End rules, one for both: the API's end event ({@code [DONE]}, {@code message_stop}, {@code
 * response.completed}, Ollama's {@code "done": true}: {@link StreamItem.Done}) ends the response at
 * once ({@link End#END_EVENT}; what follows is not read); the end of the body without it completes
 * the response when a finish reason came and no partial event is left, else the response is {@link
 * Outcome.Truncated}; an error object in the stream makes it an {@link Outcome.StreamError} when it
 * ends; malformed SSE or JSON, an unexpected content type or an oversized body is an {@link
 * Outcome.ProtocolError} at once ({@link End#FAILED}); the connection closing before the end is
 * {@link Outcome.Truncated}.
 *
 * <p>Not thread-safe: fed by one thread at a time (an event loop, a record thread).
 */
public final class ResponseReader implements Consumer<StreamItem> {
  private static final int MAX_ERROR_BODY = 2048;
  private static final int MAX_JSON_BODY = 64 << 20;

  /** How the outcome was reached: what the transport may do with the connection. */
  public enum End {
    /** The API's end event ended the response; the rest of the body, if any, is still to come. */
    END_EVENT,
    /** The body was read to its end: the connection is clean. */
    BODY_END,
    /** The response failed (malformed, oversized, cut): the connection's state is unknown. */
    FAILED
  }

  /** Where the reader's items and its one end go, on the feeding thread. */
  public interface Listener {
    /** One item of the response, read at {@code nanos}. */
    void item(StreamItem item, long nanos);

    /** The response's outcome, known at {@code nanos}; called once, and nothing follows it. */
    void end(Outcome outcome, long nanos, End how);
  }

  private enum Mode {
    AWAIT_HEADERS,
    SSE,
    LINES,
    JSON,
    ERROR_BODY,
    IGNORE
  }

  private final Api apiOrNull;
  private final StreamDecoder decoderOrNull;
  private final boolean streamingRequest;
  private final Supplier<SseFramer> sseFramers;
  private final Listener listener;
  private Mode mode = Mode.AWAIT_HEADERS;
  private int status = -1;
  private boolean anyResponse;
  private boolean ended;
  private boolean eventStream;
  private SseFramer framer;
  private LineFramer lines;
  private ByteArrayOutputStream body;
  private long nowNanos;
  private boolean sawFinish;
  private String finishReason;
  private Outcome pendingFailure;

  /**
   * A reader for one response.
   *
   * @param apiOrNull the API the request spoke, or null when its response carries no tokens
   * @param decoderOrNull the API's decoder for this response ({@link StreamDecoder#of}), or null
   *     with a null API
   * @param streamingRequest whether the request asked for a stream (a line-delimited API's JSON
   *     answer is then read line by line)
   * @param sseFramers the framer of an event-stream body, asked once per response; its events
   *     must reach {@link #event}. Null: the reader makes its own.
   */
  public ResponseReader(
      Api apiOrNull, StreamDecoder decoderOrNull, boolean streamingRequest, Supplier<SseFramer> sseFramers,
      Listener listener) {
    this.apiOrNull = apiOrNull;
    this.decoderOrNull = decoderOrNull;
    this.streamingRequest = streamingRequest;
    this.sseFramers = sseFramers != null ? sseFramers : () -> SseFramer.lending(this::event);
    this.listener = listener;
  }

  /** Whether the outcome is known. */
  public boolean ended() {
    return ended;
  }

  /** Whether the response is an event stream or read as lines (the ledger's {@code streamed}). */
  public boolean streamed() {
    return eventStream || mode == Mode.LINES;
  }

  /** Whether any byte of the response (its headers included) arrived. */
  public boolean anyResponse() {
    return anyResponse;
  }

  /**
   * The response's status and content type arrived.
   *
   * @param contentType the header's value, lower-case, "" when there is none
   */
  public void headers(int status, String contentType, long nanos) {
    anyResponse = true;
    this.status = status;
    eventStream = contentType.startsWith("text/event-stream");
    if (status < 200 || status >= 300) {
      mode = Mode.ERROR_BODY;
      body = new ByteArrayOutputStream();
    } else if (decoderOrNull == null) {
      mode = Mode.IGNORE;
    } else if (eventStream) {
      mode = Mode.SSE;
      framer = sseFramers.get();
    } else if (apiOrNull.lineDelimited() && isLineDelimited(contentType)) {
      mode = Mode.LINES;
      lines = new LineFramer(this::line);
    } else if (contentType.startsWith("application/json") || contentType.isEmpty()) {
      mode = Mode.JSON;
      body = new ByteArrayOutputStream();
    } else {
      mode = Mode.IGNORE;
      fail(new Outcome.ProtocolError("expected " + (apiOrNull.lineDelimited() ? "application/x-ndjson" : "text/event-stream")
          + " or application/json, got content-type '" + contentType + "': does the server speak API "
          + apiOrNull.wireName() + "?"), nanos);
    }
  }

  /**
   * Ollama streams {@code application/x-ndjson}; a streamed request answered as {@code
   * application/json} (or untyped) is read line by line too, as Ollama's clients do.
   */
  private boolean isLineDelimited(String contentType) {
    return contentType.startsWith("application/x-ndjson")
        || contentType.startsWith("application/jsonl")
        || (streamingRequest && (contentType.startsWith("application/json") || contentType.isEmpty()));
  }

  /** Body bytes of one read; {@code bytes[offset, offset + length)} is read during the call only. */
  public void content(byte[] bytes, int offset, int length, long nanos) {
    if (length == 0 || ended) {
      return;
    }
    anyResponse = true;
    nowNanos = nanos;
    switch (mode) {
      case SSE, LINES -> {
        try {
          if (mode == Mode.SSE) {
            framer.feed(bytes, offset, length);
          } else {
            lines.feed(bytes, offset, length);
          }
        } catch (SseException | ProtocolException e) {
          fail(new Outcome.ProtocolError(e.getMessage()), nanos);
        }
      }
      case JSON -> {
        if (body.size() + length > MAX_JSON_BODY) {
          fail(new Outcome.ProtocolError("response body larger than " + (MAX_JSON_BODY >> 20) + " MiB"), nanos);
        } else {
          body.write(bytes, offset, length);
        }
      }
      case ERROR_BODY -> body.write(bytes, offset, Math.min(length, Math.max(0, MAX_ERROR_BODY - body.size())));
      case IGNORE, AWAIT_HEADERS -> {}
    }
  }

  /** One SSE event from the framer, its data lent for the length of the call. */
  public void event(String type, byte[] data, int offset, int length) {
    if (!ended) {
      decoderOrNull.event(type, data, offset, length, this);
    }
  }

  private void line(byte[] bytes, int offset, int length) {
    if (!ended) {
      decoderOrNull.event(null, bytes, offset, length, this);
    }
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
      case StreamItem.ErrorEvent e -> pendingFailure = Outcome.streamError(e.message());
      case StreamItem.Done d -> {
        if (mode != Mode.JSON) { // a whole body's items end with its body
          end(pendingFailure != null ? pendingFailure : Outcome.ended(finishReason), nowNanos, End.END_EVENT);
        }
      }
      default -> {}
    }
  }

  /** The body ended (its last chunk, or its Content-Length). */
  public void bodyEnd(long nanos) {
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
        end(o, nanos, End.BODY_END);
      }
      case JSON -> {
        byte[] b = body.toByteArray();
        try {
          decoderOrNull.body(b, 0, b.length, this);
        } catch (ProtocolException e) {
          fail(new Outcome.ProtocolError(e.getMessage()), nanos);
          return;
        }
        end(pendingFailure != null ? pendingFailure : Outcome.ended(finishReason), nanos, End.BODY_END);
      }
      case ERROR_BODY -> end(new Outcome.HttpError(status, body.toString(StandardCharsets.UTF_8).strip()), nanos, End.BODY_END);
      case IGNORE -> end(Outcome.ended(null), nanos, End.BODY_END); // a response that carries no tokens
      case AWAIT_HEADERS -> fail(new Outcome.ProtocolError("empty response"), nanos);
    }
  }

  /** The connection closed before the body ended. */
  public void closed(long nanos) {
    fail(new Outcome.Truncated(anyResponse ? "connection closed mid-response" : "connection closed before any response"),
        nanos);
  }

  /** Ends with {@code outcome} (a transport's own failure: a write error, a timeout); no-op once ended. */
  public void fail(Outcome outcome, long nanos) {
    end(outcome, nanos, End.FAILED);
  }

  private void end(Outcome outcome, long nanos, End how) {
    if (ended) {
      return;
    }
    ended = true;
    listener.end(outcome, nanos, how);
  }
}
