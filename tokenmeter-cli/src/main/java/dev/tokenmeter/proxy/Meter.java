package dev.tokenmeter.proxy;

import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.client.ChunkParser;
import dev.tokenmeter.client.LineFramer;
import dev.tokenmeter.client.ProtocolException;
import dev.tokenmeter.client.StreamDecoder;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.sse.SseEvent;
import dev.tokenmeter.sse.SseException;
import dev.tokenmeter.sse.SseFramer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The record path's view of one request: replays the stream path's {@link RecordEvent}s through
 * the SSE framer (or, for Ollama's newline-delimited JSON, the line framer) and the route's API
 * decoder ({@link StreamDecoder}, bench's own) into a {@link RequestTimeline}, and at the end builds
 * the {@link MeteredRequest} with bench's own metric math ({@link RequestMetrics}).
 *
 * <p>Outcome rules, as bench's client applies them: a non-2xx status is an HTTP error; in a 200
 * stream, an error object is a stream error, malformed SSE or JSON a protocol error (chunks after
 * it are not counted), the API's end event ({@code [DONE]}, {@code message_stop}, {@code
 * response.completed}, Ollama's {@code "done": true}) or a finish reason with no partial event
 * left is a completion, anything else at the end of the body is truncated; the upstream closing
 * mid-response is truncated; the client leaving first is cancelled.
 *
 * <p>Confined to one record thread, except {@link #markLost()}, which the stream path calls.
 */
final class Meter implements SseFramer.Listener, Consumer<StreamItem> {
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

  final RequestInfo info;
  final int lane;
  /** The request's budget reservation, settled by the record path once it ends or is lost. */
  final BudgetBook.Hold hold;
  private final AtomicBoolean lost = new AtomicBoolean();

  private final RequestTimeline timeline;
  private Mode mode = Mode.AWAIT_HEADERS;
  private StreamDecoder decoder;
  private SseFramer framer;
  private LineFramer lines;
  private ByteArrayOutputStream body;
  private boolean streamed;
  private boolean anyBody;
  private long nowNanos;
  private boolean sawFinish;
  private boolean sawDone;
  private String finishReason;
  private Outcome streamError;
  private String protocolError;
  private int cachedTokens = -1;

  Meter(RequestInfo info, int lane) {
    this(info, lane, BudgetBook.Hold.NONE);
  }

  Meter(RequestInfo info, int lane, BudgetBook.Hold hold) {
    this.info = info;
    this.lane = lane;
    this.hold = hold;
    this.timeline =
        new RequestTimeline(
            new RequestSpec(0, new Prompt.Text(""), -1, false, OptionalInt.empty()),
            0,
            dev.tokenmeter.core.request.Phase.MEASURED,
            info.receivedNanos());
  }

  /** Marks the request's record as lost (an event could not be queued); true the first time. */
  boolean markLost() {
    return lost.compareAndSet(false, true);
  }

  boolean lost() {
    return lost.get();
  }

  // ---- record thread ----

  void sent(long nanos) {
    timeline.sent(nanos);
  }

  void headers(int status, String contentType, long nanos, ChunkParser openAi) {
    timeline.headers(status, nanos);
    streamed = contentType.startsWith("text/event-stream");
    if (info.generation()) {
      decoder = StreamDecoder.of(info.route().apiOrNull(), openAi);
    }
    if (status < 200 || status >= 300) {
      mode = Mode.ERROR_BODY;
      body = new ByteArrayOutputStream();
    } else if (!info.generation()) {
      mode = Mode.IGNORE;
    } else if (streamed) {
      mode = Mode.SSE;
      framer = new SseFramer(this);
    } else if (info.route().lineDelimited() && isLineDelimited(contentType)) {
      mode = Mode.LINES;
      streamed = true;
      lines = new LineFramer((b, off, len) -> decoder.event(null, b, off, len, this));
    } else if (contentType.startsWith("application/json") || contentType.isEmpty()) {
      mode = Mode.JSON;
      body = new ByteArrayOutputStream();
    } else {
      mode = Mode.IGNORE;
      protocolError = "expected text/event-stream or application/json, got '" + contentType + "'";
    }
  }

  /**
   * Ollama streams {@code application/x-ndjson}; a streamed request answered as {@code
   * application/json} (or untyped) is read line by line too, as Ollama's clients and bench do.
   */
  private static boolean isLineDelimited(String contentType) {
    return contentType.startsWith("application/x-ndjson")
        || contentType.startsWith("application/jsonl")
        || contentType.startsWith("application/json")
        || contentType.isEmpty();
  }

  void bytes(byte[] bytes, long nanos) {
    nowNanos = nanos;
    anyBody = true;
    switch (mode) {
      case SSE, LINES -> {
        try {
          if (mode == Mode.SSE) {
            framer.feed(bytes, 0, bytes.length);
          } else {
            lines.feed(bytes, 0, bytes.length);
          }
        } catch (SseException | ProtocolException e) {
          protocolError = e.getMessage();
          mode = Mode.IGNORE; // bench stops at the first protocol error: so do the counts
        }
      }
      case JSON -> {
        if (body.size() + bytes.length > MAX_JSON_BODY) {
          protocolError = "response body larger than " + (MAX_JSON_BODY >> 20) + " MiB";
          mode = Mode.IGNORE;
        } else {
          body.write(bytes, 0, bytes.length);
        }
      }
      case ERROR_BODY -> body.write(bytes, 0, Math.min(bytes.length, MAX_ERROR_BODY - body.size()));
      case IGNORE, AWAIT_HEADERS -> {}
    }
  }

  @Override
  public void onEvent(SseEvent event) {
    decoder.event(event.type(), event.dataBytes(), 0, event.dataLength(), this);
  }

  @Override
  public void accept(StreamItem item) {
    timeline.item(item, nowNanos);
    switch (item) {
      case StreamItem.Finish f -> {
        sawFinish = true;
        finishReason = f.reason();
      }
      case StreamItem.Done d -> sawDone = true;
      case StreamItem.ErrorEvent e ->
          streamError = Outcome.streamError(e.message());
      case StreamItem.Usage u -> cachedTokens = u.cachedTokens();
      case StreamItem.Text t -> {}
      case StreamItem.Role r -> {}
      case StreamItem.ToolCallStart c -> {}
    }
  }

  /** The request's outcome from how it ended and what its body said; parses a JSON body here. */
  Outcome outcome(RecordEvent.Ending ending, String message, long nanos) {
    nowNanos = nanos;
    return switch (ending) {
      case CONNECT_FAILED -> new Outcome.ConnectFailed(message);
      case CLIENT_CANCELLED -> new Outcome.Cancelled(message);
      case UPSTREAM_PROTOCOL -> new Outcome.ProtocolError(message);
      case UPSTREAM_CLOSED ->
          new Outcome.Truncated(
              anyBody || mode != Mode.AWAIT_HEADERS
                  ? "connection closed mid-response"
                  : "connection closed before any response");
      case BODY_END -> atBodyEnd();
    };
  }

  private Outcome atBodyEnd() {
    if (mode == Mode.ERROR_BODY) {
      return new Outcome.HttpError(
          timeline.httpStatus(), body.toString(StandardCharsets.UTF_8).strip());
    }
    if (mode == Mode.JSON) {
      byte[] b = body.toByteArray();
      try {
        decoder.body(b, 0, b.length, this);
      } catch (ProtocolException e) {
        protocolError = e.getMessage();
      }
    }
    if (protocolError != null) {
      return new Outcome.ProtocolError(protocolError);
    }
    if (streamError != null) {
      return streamError;
    }
    if (mode == Mode.SSE && !sawDone && !(sawFinish && !framer.hasPartialEvent())) {
      return new Outcome.Truncated("stream ended without [DONE] or finish_reason");
    }
    if (mode == Mode.LINES && !sawDone && !(sawFinish && !lines.hasPartialLine())) {
      return new Outcome.Truncated("stream ended without a \"done\": true line");
    }
    return Outcome.ended(finishReason);
  }

  /** Ends the timeline and builds the record. */
  MeteredRequest finish(
      RecordEvent.Ending ending, String message, long nanos, RecordContext ctx) {
    Outcome outcome = outcome(ending, message, nanos);
    timeline.end(outcome, nanos);
    boolean counted = info.generation(); // other paths (/v1/models, ...) carry no tokens
    OutputTokenCounter counter =
        counted && timeline.usageCompletionTokens() < 0 && timeline.chunkCount() > 0
            ? ctx.counters().forModel(info.model())
            : null;
    RequestMetrics m = RequestMetrics.of(timeline, counter);
    long[] itl = ctx.itlSummary(m);
    int input = m.inputTokens();
    int output = counted ? m.outputTokens() : -1;
    TokenCountSource source = counted ? m.outputTokenSource() : null;
    Prices prices = ctx.prices();
    double cost = prices.cost(info.model(), input, output);
    return new MeteredRequest(
        info.requestId(),
        info.startedAtEpochMillis(),
        info.tenant(),
        info.model(),
        info.upstream(),
        info.endpoint(),
        streamed,
        timeline.httpStatus(),
        outcome.errorClass(),
        outcome.description(),
        timeline.finishReason(),
        input,
        output,
        source,
        timeline.usageReasoningTokens(),
        cachedTokens,
        timeline.sentNanos() < 0 ? -1 : timeline.sentNanos() - info.receivedNanos(),
        m.ttftNanos(),
        m.tpotNanos(),
        m.e2eNanos(),
        itl[0],
        itl[1],
        itl[2],
        m.chunkCount(),
        info.inFlightAtStart(),
        cost,
        Double.isNaN(cost) ? null : prices.currency(),
        info.conversationOrNull(),
        info.promptBlocksOrNull());
  }

  /**
   * The record of a request the proxy refused itself: its status and class as the client saw them,
   * no upstream ({@link MeteredRequest#NO_UPSTREAM}), no tokens, no times, no cost.
   */
  MeteredRequest refused(int status, String message) {
    return new MeteredRequest(
        info.requestId(), info.startedAtEpochMillis(), info.tenant(), info.model(), info.upstream(),
        info.endpoint(), false, status, dev.tokenmeter.core.request.ErrorClass.ofHttpStatus(status),
        new Outcome.HttpError(status, "refused by the proxy: " + message).description(), null,
        -1, -1, null, -1, -1, -1, -1, Double.NaN, -1, -1, -1, -1, 0, -1, Double.NaN, null,
        info.conversationOrNull());
  }

  /** Exact nearest-rank p50, p99 and max of sorted values; -1 each when there are none. */
  static long[] summary(long[] values, int n) {
    if (n == 0) {
      return new long[] {-1, -1, -1};
    }
    Arrays.sort(values, 0, n);
    return new long[] {values[rank(50, n)], values[rank(99, n)], values[n - 1]};
  }

  private static int rank(int percent, int n) {
    return (int) Math.max(0, Math.ceil(percent / 100.0 * n) - 1);
  }
}
