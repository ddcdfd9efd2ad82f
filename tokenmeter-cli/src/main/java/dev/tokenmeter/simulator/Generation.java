package dev.tokenmeter.simulator;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One response being generated: emits its tokens at their due times on the connection's event
 * loop. Confined to that event loop (no locking).
 *
 * <pre>
 * design notes
 * - Due times are absolute: due(0) = arrival + shift + ttft, due(i) = due(i−1) + itl(i), where
 *   shift is a slow-headers delay and a stall adds to one itl. A late wake-up never moves later
 *   due times, so the schedule is exact and lateness shows up as jitter only.
 * - A model may answer NOT_YET (a batching engine before the iteration that makes the token has
 *   started): the generation flushes what it has and asks again at the model's retry time.
 * - One run() = one flush. Every token already due when it runs is coalesced, up to
 *   zeroDelayBatchTokens per flush, then the task re-queues itself so other connections get the
 *   loop: tokens due at the same instant (zero delay), and overdue tokens of a server running
 *   late. A token due later gets its own flush at its time. Coalescing the overdue ones keeps a
 *   late server from paying one write per token exactly when it is short of time (it did so
 *   before, and fell further behind: docs/PERFORMANCE.md, "The simulator in real
 *   time"); each token is still its own SSE
 *   event, and its actual time is this flush's.
 * - actual(i) is the ticker read just before the buffer of its flush is built and written.
 * - A non-writable channel (slow reader) parks the generation until writability returns: the
 *   server does not buffer without bound, and the record shows the lateness honestly.
 * - A non-streamed response walks the same schedule (so a stateful timing model sees the same
 *   call sequence) and writes the whole body when the last token is due.
 * </pre>
 */
final class Generation implements Runnable {

  /**
   * Everything decided when the request was accepted.
   *
   * @param finish STOP or LENGTH, the ending if nothing cuts the response
   * @param randomSeed seeds the generated text
   * @param toolCalls the tool calls answered instead of text (their arguments are the tokens, call
   *     after call) with their ids ({@code call_…}, {@code toolu_…}; null for Gemini), or null
   * @param textPieces a scripted text's tokens ({@link Scripted.Text}; EOS an empty piece), or null
   * @param refusal the text pieces are a refusal ({@link Scripted.Refusal}; chat only)
   */
  record Plan(
      GenerationRequest request,
      boolean includeUsage,
      EmissionRecord.Ending finish,
      Fault fault,
      String responseId,
      long createdSeconds,
      String quotedModel,
      String clientRequestId,
      long randomSeed,
      ToolCalls.Reply toolCalls,
      List<String> textPieces,
      boolean refusal) {}

  private static final byte[] EMPTY = new byte[0];

  private final ServerState state;
  private final ChannelHandlerContext ctx;
  private final SimHandler owner;
  private final Plan plan;
  private final GenerationRequest request;
  private final TimingModel timing;
  private final SplittableRandom random;
  private final WireFrames frames;
  private final StringBuilder text;
  private final int faultAt;
  private final long[] intended;
  private final long[] actual;
  /** A tool call's arguments or a scripted text, one piece per token; null for generated text. */
  private final java.util.List<String> toolPieces;

  private int next;
  private long nextDue;
  private long headersNanos = -1;
  private boolean ended;
  private boolean waitingForWritability;
  /** False while the model answered NOT_YET for token {@code next}; nextDue is then the base. */
  private boolean dueKnown = true;
  private long pendingStallNanos;
  private ScheduledFuture<?> timer;
  /** For the server's metrics: when the engine first scheduled it, its first and last token left; -1 before. */
  private long scheduledNanos = -1;
  private long firstNanos = -1;
  private long lastNanos = -1;
  /** Prompt tokens the prefix cache served, known when token 0 is due; 0 before. */
  private int cachedTokens;

  Generation(ServerState state, ChannelHandlerContext ctx, SimHandler owner, Plan plan) {
    this.state = state;
    this.ctx = ctx;
    this.owner = owner;
    this.plan = plan;
    this.request = plan.request();
    this.timing = state.config.timing();
    this.random = new SplittableRandom(plan.randomSeed());
    int n = request.outputTokens();
    this.frames =
        WireFrames.of(
            request.api(), plan.responseId(), plan.createdSeconds(), state.config.servedModelName(),
            plan.quotedModel(), request.promptTokens(), plan.toolCalls());
    this.toolPieces = plan.toolCalls() != null ? plan.toolCalls().pieces() : plan.textPieces();
    if (plan.refusal()) {
      frames.refusal();
    }
    this.text = request.stream() ? null : new StringBuilder(n * 6);
    this.faultAt =
        plan.fault().midStream() ? Math.min(state.config.faults().afterTokens(), n - 1) : -1;
    boolean record = state.config.groundTruthSink() != null;
    this.intended = record ? new long[n] : null;
    this.actual = record ? new long[n] : null;
  }

  GenerationRequest request() {
    return request;
  }

  /** Starts the response: an HTTP error now, or headers (now or delayed) and the token schedule. */
  void start() {
    state.metrics.started();
    Fault fault = plan.fault();
    if (fault == Fault.HTTP_429 || fault == Fault.HTTP_500 || fault == Fault.HTTP_503) {
      headersNanos = state.ticker.nanos();
      report(EmissionRecord.Ending.HTTP_ERROR);
      owner.sendInjectedError(fault);
      owner.generationEnded(this, EmissionRecord.Ending.HTTP_ERROR);
      return;
    }
    long shiftNanos = fault == Fault.SLOW_HEADERS ? state.config.faults().slowHeadersNanos() : 0;
    long headersDue = request.arrivalNanos() + shiftNanos;
    nextDue = headersDue;
    long stall = faultAt == 0 && fault == Fault.STALL ? state.config.faults().stallNanos() : 0;
    resolveDue(timing.firstTokenDelayNanos(request), stall);
    if (request.stream()) {
      long wait = headersDue - state.ticker.nanos();
      if (wait > 0) {
        timer = ctx.executor().schedule(this::sendHeadersThenRun, wait, TimeUnit.NANOSECONDS);
      } else {
        sendHeadersThenRun();
      }
    } else {
      run();
    }
  }

  private void sendHeadersThenRun() {
    timer = null;
    if (ended) {
      return;
    }
    HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, frames.contentType());
    response.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    owner.decorate(response);
    headersNanos = state.ticker.nanos();
    ctx.write(response);
    if (state.config.roleChunkWithHeaders() && frames.hasOpening()) {
      ByteBuf role = ctx.alloc().buffer(1024);
      frames.writeOpening(role);
      ctx.write(new DefaultHttpContent(role));
    }
    ctx.flush();
    run();
  }

  /** Emits what is due now (one flush), then re-arms itself. */
  @Override
  public void run() {
    timer = null;
    if (ended) {
      return;
    }
    if (request.stream() && !ctx.channel().isWritable()) {
      waitingForWritability = true;
      return;
    }
    if (!dueKnown) {
      long delay =
          next == 0
              ? timing.firstTokenDelayNanos(request)
              : timing.interTokenDelayNanos(request, next);
      resolveDue(delay, pendingStallNanos);
      if (!dueKnown) {
        retryLater();
        return;
      }
    }
    long now = state.ticker.nanos();
    if (now < nextDue) {
      timer = ctx.executor().schedule(this, nextDue - now, TimeUnit.NANOSECONDS);
      return;
    }
    ByteBuf out = request.stream() ? ctx.alloc().buffer(512) : null;
    int batch = 0;
    while (true) {
      if (next == 0) {
        learnCachedTokens(); // token 0 is due: the request was scheduled, its cache lookup done
      }
      if (next == 0 && out != null && !state.config.roleChunkWithHeaders()) {
        frames.writeOpening(out); // carries no token: it leaves even if a fault acts now
      }
      if (next == faultAt && actOnFault(out)) {
        return;
      }
      boolean last = next == request.outputTokens() - 1;
      emit(out, last, now);
      if (last) {
        finish(out, now);
        return;
      }
      long stall =
          next == faultAt && plan.fault() == Fault.STALL ? state.config.faults().stallNanos() : 0;
      resolveDue(timing.interTokenDelayNanos(request, next), stall);
      if (!dueKnown || nextDue > now || ++batch >= state.config.zeroDelayBatchTokens()) {
        break;
      }
    }
    if (out != null) {
      ctx.writeAndFlush(new DefaultHttpContent(out));
    }
    if (!dueKnown) {
      retryLater();
    } else if (nextDue <= state.ticker.nanos()) {
      ctx.executor().execute(this); // yield: other connections' tasks run first
    } else {
      timer = ctx.executor().schedule(this, nextDue - state.ticker.nanos(), TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Asks the prefix cache how much of the prompt it served: the timing model's own (the engine's,
   * looked up when it scheduled the request) or the server's stand-in {@link LruPrefixCache}. Tells
   * the frames, which put it in every usage they write from now on.
   */
  private void learnCachedTokens() {
    cachedTokens =
        state.prefixCache != null
            ? state.prefixCache.lookupAndInsert(request.promptIds(), request.promptTokens())
            : timing.cachedPromptTokens(request);
    frames.cachedPromptTokens(cachedTokens);
  }

  /** Writes token {@code next} (due at {@code nextDue}) and records it; advances {@code next}. */
  private void emit(ByteBuf out, boolean last, long now) {
    boolean eos = last && plan.finish() == EmissionRecord.Ending.STOP && state.config.eosChunk();
    int token = eos || toolPieces != null ? -1 : Vocabulary.draw(random);
    String piece = toolPieces == null ? null : toolPieces.get(next);
    if (out != null) {
      byte[] json = piece != null ? Bodies.escaped(piece) : eos ? EMPTY : Vocabulary.jsonBytes(token);
      out.ensureWritable(frames.tokenChunkBound(json));
      frames.writeToken(out, json, last ? plan.finish().finishReason() : null);
      state.jitterNanos.recordValue(Math.max(0, now - nextDue));
    } else if (piece != null) {
      text.append(piece);
    } else if (!eos) {
      text.append(Vocabulary.text(token));
    }
    if (intended != null) {
      intended[next] = nextDue;
      actual[next] = now;
    }
    if (next == 0) {
      firstNanos = now;
      scheduledNanos = timing.scheduledNanos(request);
      state.metrics.firstToken(request, now);
    } else {
      state.metrics.nextToken(now - lastNanos);
    }
    lastNanos = now;
    next++;
  }

  /** Acts on a mid-stream fault due now; true when the response ended. */
  private boolean actOnFault(ByteBuf out) {
    switch (plan.fault()) {
      case DISCONNECT -> {
        report(EmissionRecord.Ending.SERVER_DISCONNECT);
        ctx.writeAndFlush(new DefaultHttpContent(out)).addListener(f -> ctx.close());
        owner.generationEnded(this, EmissionRecord.Ending.SERVER_DISCONNECT);
        return true;
      }
      case ERROR_EVENT -> {
        report(EmissionRecord.Ending.ERROR_EVENT);
        frames.writeError(out);
        ctx.writeAndFlush(new DefaultLastHttpContent(out));
        owner.generationEnded(this, EmissionRecord.Ending.ERROR_EVENT);
        return true;
      }
      case MALFORMED_CHUNK -> {
        frames.writeMalformed(out);
        return false;
      }
      default -> {
        return false;
      }
    }
  }

  /**
   * Sends the last token, then usage and {@code [DONE]} in a second flush (or the JSON body). The
   * record goes to the sink before the final bytes are written, so a client that saw the end of
   * the response finds its record already delivered.
   */
  private void finish(ByteBuf out, long now) {
    int completionTokens = request.outputTokens();
    if (out != null) {
      ctx.writeAndFlush(new DefaultHttpContent(out));
      report(plan.finish());
      ByteBuf trailer = ctx.alloc().buffer(512);
      frames.writeClosing(
          trailer, plan.finish().finishReason(), request.promptTokens(), completionTokens, plan.includeUsage());
      ctx.writeAndFlush(new DefaultLastHttpContent(trailer));
    } else {
      byte[] body =
          frames.body(text.toString(), plan.finish().finishReason(), request.promptTokens(), completionTokens);
      headersNanos = state.ticker.nanos();
      // The body leaves now: every token's actual time is this write, jitter that of the last.
      if (actual != null) {
        Arrays.fill(actual, headersNanos);
      }
      state.jitterNanos.recordValue(Math.max(0, headersNanos - nextDue));
      report(plan.finish());
      owner.sendJson(HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
    }
    owner.generationEnded(this, plan.finish());
  }

  /** Resumes after the channel became writable again. */
  void writabilityChanged() {
    if (waitingForWritability && ctx.channel().isWritable()) {
      waitingForWritability = false;
      run();
    }
  }

  /** Ends the response because the connection closed under it. */
  void abort(EmissionRecord.Ending ending) {
    if (!ended) {
      report(ending);
      owner.generationEnded(this, ending);
    }
  }

  /** Marks the response ended, cancels its timer, counts its tokens and delivers its record. */
  private void report(EmissionRecord.Ending ending) {
    ended = true;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    state.tokens.add(next);
    state.metrics.ended(request, scheduledNanos, firstNanos, lastNanos, state.ticker.nanos());
    timing.onFinish(request);
    GroundTruthSink sink = state.config.groundTruthSink();
    if (sink != null) {
      sink.accept(
          new EmissionRecord(
              request,
              plan.clientRequestId(),
              plan.fault(),
              ending,
              cachedTokens,
              headersNanos,
              next == intended.length ? intended : Arrays.copyOf(intended, next),
              next == actual.length ? actual : Arrays.copyOf(actual, next)));
    }
  }

  /**
   * Sets the due time of token {@code next} to the previous due time (arrival for token 0) plus
   * {@code delayNanos} plus {@code stallNanos}; when the model answered {@link
   * TimingModel#NOT_YET}, keeps the previous due time and the stall for the next ask instead.
   */
  private void resolveDue(long delayNanos, long stallNanos) {
    if (delayNanos == TimingModel.NOT_YET) {
      dueKnown = false;
      pendingStallNanos = stallNanos;
      return;
    }
    nextDue += nonNegative(delayNanos) + stallNanos;
    dueKnown = true;
    pendingStallNanos = 0;
  }

  /** Asks the model again when it said it would know. */
  private void retryLater() {
    long wait = Math.max(0, timing.retryAtNanos(request) - state.ticker.nanos());
    timer = ctx.executor().schedule(this, wait, TimeUnit.NANOSECONDS);
  }

  private static long nonNegative(long nanos) {
    if (nanos < 0) {
      throw new IllegalStateException("timing model returned a negative delay: " + nanos);
    }
    return nanos;
  }
}
