package dev.tokenmeter.client;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A JFR event per turn of the client's event loop that read anything: how many socket reads the
 * turn took and how far its last read's stamp lies behind its first. The first read of a turn is
 * taken right after {@code epoll_wait} returned, so a read's stamp lags the wake-up by at most the
 * span, and the reads before it are what delayed it. Recorded only while a flight recording runs
 * (for instance {@code TOKENMETER_JAVA_OPTS=-XX:StartFlightRecording=filename=client.jfr}); read
 * with {@code jfr print --events dev.tokenmeter.ReadBatch client.jfr}.
 */
@Name("dev.tokenmeter.ReadBatch")
@Label("Read batch")
@Category("tokenmeter")
@Description("Socket reads taken in one turn of the client's event loop, and the span of their stamps")
@StackTrace(false)
final class ReadBatchEvent extends jdk.jfr.Event {
  @Label("Reads")
  @Description("Socket reads (channelRead calls at the head of the pipelines) in this loop turn")
  int reads;

  @Label("Span")
  @Description("Stamp of the turn's last read minus that of its first")
  @Timespan(Timespan.NANOSECONDS)
  long spanNanos;
}
