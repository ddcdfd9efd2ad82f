package dev.tokenmeter.proxy;

import dev.tokenmeter.client.ChunkParser;
import dev.tokenmeter.client.ProtocolException;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.sse.SseEvent;
import dev.tokenmeter.sse.SseException;
import dev.tokenmeter.sse.SseFramer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Removes the usage-only chunk ({@code "choices": []} with a {@code usage} object) from a stream
 * whose {@code stream_options.include_usage} the proxy added, and forwards every other byte
 * unchanged. Stream path; one per response; confined to its event loop.
 *
 * <p>Events are split at blank lines (LF, CRLF or CR line ends, as the SSE framer reads them). A
 * complete event is forwarded as a slice of the read that carried it, in that read's flush; only
 * the incomplete event at the end of a read is held (copied) until its blank line arrives, so no
 * event the client could already dispatch is delayed: an SSE client acts on an event only at its
 * blank line. Only events whose raw bytes contain {@code usage} are parsed (framer and chunk
 * parser), one or two per stream. At the end of the body, or when the upstream closes, what is
 * held is forwarded as it is: a truncated stream stays truncated.
 */
final class UsageChunkFilter {
  private static final byte[] USAGE = "usage".getBytes(StandardCharsets.US_ASCII);

  private final ChunkParser parser = new ChunkParser();
  private ByteBuf held;
  private boolean atLineStart = true;
  private boolean prevCr;
  /** The last read ended with a CR that closed an event: an LF first in the next read is its. */
  private boolean absorbLf;
  private boolean lastDropped;
  private int usageMatched;
  private boolean eventHasUsage;
  private int removed;

  /** Usage-only chunks removed so far. */
  int removed() {
    return removed;
  }

  /** Forwards {@code in}'s complete events (less a usage-only one) to {@code out}. */
  void forward(ByteBuf in, Consumer<ByteBuf> out) {
    int end = in.writerIndex();
    int i = in.readerIndex();
    if (i == end) {
      return;
    }
    if (absorbLf) {
      absorbLf = false;
      prevCr = false;
      if (i < end && in.getByte(i) == '\n') {
        if (!lastDropped) {
          out.accept(in.retainedSlice(i, 1));
        }
        i++;
      }
    }
    int eventStart = i;
    for (; i < end; i++) {
      byte b = in.getByte(i);
      boolean boundary;
      if (b == '\n') {
        if (prevCr) {
          prevCr = false;
          continue;
        }
        boundary = lineEnd();
      } else if (b == '\r') {
        prevCr = true;
        boundary = lineEnd();
      } else {
        prevCr = false;
        atLineStart = false;
        // "usage" has no proper prefix that is also a suffix: on a mismatch only a 'u' restarts.
        usageMatched = b == USAGE[usageMatched] ? usageMatched + 1 : b == 'u' ? 1 : 0;
        if (usageMatched == USAGE.length) {
          eventHasUsage = true;
          usageMatched = 0;
        }
        continue;
      }
      if (!boundary) {
        continue;
      }
      int eventEnd = i + 1;
      if (b == '\r') {
        if (eventEnd < end && in.getByte(eventEnd) == '\n') {
          eventEnd++;
          i++;
          prevCr = false;
        } else if (eventEnd == end) {
          absorbLf = true;
        }
      }
      emit(in, eventStart, eventEnd, out);
      eventStart = eventEnd;
    }
    if (eventStart < end) {
      if (held == null) {
        held = Unpooled.buffer(end - eventStart);
      }
      held.writeBytes(in, eventStart, end - eventStart);
    }
  }

  /** Forwards what is held (a partial event at the end of the body), as it is. */
  void finish(Consumer<ByteBuf> out) {
    if (held != null && held.isReadable()) {
      out.accept(held);
    } else if (held != null) {
      held.release();
    }
    held = null;
  }

  /** Frees what is held without forwarding it (the client is gone). */
  void discard() {
    if (held != null) {
      held.release();
      held = null;
    }
  }

  /** A line ended; true when it was empty (the event's blank line). */
  private boolean lineEnd() {
    if (atLineStart) {
      return true;
    }
    atLineStart = true;
    return false;
  }

  private void emit(ByteBuf in, int start, int end, Consumer<ByteBuf> out) {
    boolean candidate = eventHasUsage;
    eventHasUsage = false;
    usageMatched = 0;
    if (candidate && usageOnly(eventBytes(in, start, end))) {
      removed++;
      lastDropped = true;
      if (held != null) {
        held.release();
        held = null;
      }
      return;
    }
    lastDropped = false;
    if (held != null) {
      out.accept(held);
      held = null;
    }
    out.accept(in.retainedSlice(start, end - start));
  }

  private byte[] eventBytes(ByteBuf in, int start, int end) {
    int heldLength = held == null ? 0 : held.readableBytes();
    byte[] b = new byte[heldLength + end - start];
    if (held != null) {
      held.getBytes(held.readerIndex(), b, 0, heldLength);
    }
    in.getBytes(start, b, heldLength, end - start);
    return b;
  }

  /** Whether the event is one chunk that says nothing but usage. */
  private boolean usageOnly(byte[] event) {
    List<SseEvent> events = new ArrayList<>(1);
    List<StreamItem> items = new ArrayList<>(2);
    try {
      new SseFramer(events::add).feed(event, 0, event.length);
      if (events.size() != 1) {
        return false;
      }
      parser.parse(events.get(0), items::add);
    } catch (SseException | ProtocolException e) {
      return false; // not ours to judge: forwarded as it is
    }
    return items.size() == 1 && items.get(0) instanceof StreamItem.Usage;
  }
}
