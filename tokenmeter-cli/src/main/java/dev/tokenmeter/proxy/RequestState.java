package dev.tokenmeter.proxy;

import dev.tokenmeter.governance.BudgetBook;
import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.ChunkParser;
import dev.tokenmeter.client.ResponseReader;
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
import java.util.Arrays;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request's state on the record path: the stream path's {@link RecordEvent}s replayed through
 * the one {@link ResponseReader} bench's client reads with (framing SSE or Ollama's
 * newline-delimited JSON, the route's API decoder, outcome and end rules) into a {@link
 * RequestTimeline}, and at the end the {@link MeteredRequest} built with bench's own metric math
 * ({@link RequestMetrics}). So a request metered here and the same request measured by bench give
 * the same outcome, description and figures.
 *
 * <p>The stream path's ending decides only what the reader has not: once the reader has ended (the
 * API's end event, a protocol error) the rest of the body and how the connection ended count for
 * nothing; otherwise the upstream closing mid-response is truncated, the client leaving first is
 * cancelled, a connection that could not be made is a connect failure.
 *
 * <p>Confined to one record thread, except {@link #markLost()}, which the stream path calls.
 */
final class RequestState implements ResponseReader.Listener {
  final RequestInfo info;
  final int lane;
  /** The request's budget reservation, settled by the record path once it ends or is lost. */
  final BudgetBook.Hold hold;
  private final AtomicBoolean lost = new AtomicBoolean();

  private final RequestTimeline timeline;
  private ResponseReader reader;
  private Outcome outcome;
  private long endNanos;
  private int cachedTokens = -1;

  RequestState(RequestInfo info, int lane) {
    this(info, lane, BudgetBook.Hold.NONE);
  }

  RequestState(RequestInfo info, int lane, BudgetBook.Hold hold) {
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
    Api api = info.generation() ? info.route().apiOrNull() : null;
    reader = new ResponseReader(api, api == null ? null : StreamDecoder.of(api, openAi), info.streamRequested(), null,
        this);
    reader.headers(status, contentType, nanos);
  }

  void bytes(byte[] bytes, long nanos) {
    if (reader != null) {
      reader.content(bytes, 0, bytes.length, nanos);
    }
  }

  @Override
  public void item(StreamItem item, long nanos) {
    timeline.item(item, nanos);
    if (item instanceof StreamItem.Usage u) {
      cachedTokens = u.cachedTokens();
    }
  }

  @Override
  public void end(Outcome outcome, long nanos, ResponseReader.End how) {
    this.outcome = outcome;
    this.endNanos = nanos;
  }

  /** The request's outcome and the time it became known, from the reader or, when it has not ended, the stream path. */
  private void settle(RecordEvent.Ending ending, String message, long nanos) {
    if (outcome != null) {
      return;
    }
    switch (ending) {
      case CONNECT_FAILED -> end(new Outcome.ConnectFailed(message), nanos, ResponseReader.End.FAILED);
      case CLIENT_CANCELLED -> end(new Outcome.Cancelled(message), nanos, ResponseReader.End.FAILED);
      case UPSTREAM_PROTOCOL -> end(new Outcome.ProtocolError(message), nanos, ResponseReader.End.FAILED);
      case UPSTREAM_CLOSED -> {
        if (reader != null) {
          reader.closed(nanos);
        } else {
          end(new Outcome.Truncated("connection closed before any response"), nanos, ResponseReader.End.FAILED);
        }
      }
      case BODY_END -> {
        if (reader != null) {
          reader.bodyEnd(nanos);
        } else {
          end(new Outcome.ProtocolError("empty response"), nanos, ResponseReader.End.FAILED);
        }
      }
    }
  }

  /** Ends the timeline and builds the record. */
  MeteredRequest finish(
      RecordEvent.Ending ending, String message, long nanos, RecordContext ctx) {
    settle(ending, message, nanos);
    timeline.end(outcome, endNanos);
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
        reader != null && reader.streamed(),
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
