package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Events held while the loop reads, handed on in order after it, each read with its own stamp. */
class HeldReadsTest {
  private final HeldReads held = new HeldReads();
  private final List<String> seen = new ArrayList<>();
  private long clock = 100;

  /** A stamp handler as the client's, on a clock that ticks once per read. */
  private final class Stamp extends ReadStamp {
    private final String name;

    Stamp(String name) {
      super(held);
      this.name = name;
    }

    @Override
    protected long stamp() {
      return clock++;
    }

    @Override
    protected void deliverRead(ChannelHandlerContext ctx, Object msg, long nanos) {
      seen.add(name + " read@" + nanos);
      ctx.fireChannelRead(msg);
    }
  }

  /** What the rest of the pipeline sees. */
  private final class Sink extends ChannelInboundHandlerAdapter {
    private final String name;

    Sink(String name) {
      this.name = name;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf b = (ByteBuf) msg;
      seen.add(name + " got " + b.toString(StandardCharsets.US_ASCII));
      b.release();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      seen.add(name + " complete");
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      seen.add(name + " inactive");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      seen.add(name + " error " + cause.getMessage());
    }
  }

  private EmbeddedChannel channel(String name) {
    return new EmbeddedChannel(new Stamp(name), new Sink(name));
  }

  private static ByteBuf text(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
  }

  @Test
  void readsOfOneTurnAreStampedFirstAndHandedOnAfterInOrder() {
    EmbeddedChannel a = channel("a");
    EmbeddedChannel b = channel("b");
    held.beginTurn();
    a.writeInbound(text("a1"));
    b.writeInbound(text("b1"));
    a.writeInbound(text("a2"));
    assertThat(seen).as("nothing handed on while the loop reads").isEmpty();
    held.endTurn();
    // Each read keeps the stamp taken when it was read (100, 101, 102), not the hand-on time; the
    // channel's read-complete (EmbeddedChannel fires one per writeInbound) stays in its place.
    assertThat(seen)
        .containsExactly(
            "a read@100", "a got a1", "a complete",
            "b read@101", "b got b1", "b complete",
            "a read@102", "a got a2", "a complete");
  }

  @Test
  void theEndOfAStreamAndErrorsComeAfterTheReadsBeforeThem() {
    EmbeddedChannel a = channel("a");
    EmbeddedChannel b = channel("b");
    held.beginTurn();
    a.writeInbound(text("last"));
    a.pipeline().fireChannelInactive();
    b.pipeline().fireExceptionCaught(new IllegalStateException("reset"));
    held.endTurn();
    assertThat(seen).containsExactly("a read@100", "a got last", "a complete", "a inactive", "b error reset");
  }

  @Test
  void outsideTheReadPhaseEventsPassAtOnceAndTheArraysGrow() {
    EmbeddedChannel a = channel("a");
    a.writeInbound(text("now"));
    assertThat(seen).containsExactly("a read@100", "a got now", "a complete");
    seen.clear();
    held.beginTurn();
    for (int i = 0; i < 100; i++) { // 200 held events: past the initial 64
      a.writeInbound(text("x" + i));
    }
    held.endTurn();
    assertThat(seen).hasSize(300);
    assertThat(seen.get(297)).isEqualTo("a read@200");
    assertThat(seen.get(298)).isEqualTo("a got x99");
    // The next turn starts empty: nothing handed on twice.
    held.beginTurn();
    held.endTurn();
    assertThat(seen).hasSize(300);
  }

  @Test
  void pastTheByteBoundTheHeldReadsAreHandedOnAndTheTurnPassesThrough() {
    EmbeddedChannel a = channel("a");
    EmbeddedChannel b = channel("b");
    int big = HeldReads.MAX_HELD_BYTES / 2;
    held.beginTurn();
    a.writeInbound(Unpooled.wrappedBuffer(new byte[big]));
    b.writeInbound(text("b1"));
    assertThat(seen).as("under the bound: held").isEmpty();
    a.writeInbound(Unpooled.wrappedBuffer(new byte[big])); // the bound is passed: all handed on
    assertThat(seen).hasSize(9);
    assertThat(seen.get(3)).isEqualTo("b read@101");
    assertThat(seen.get(6)).isEqualTo("a read@102");
    b.writeInbound(text("b2")); // the rest of the turn passes at once, with its own stamp
    assertThat(seen.subList(9, 12)).containsExactly("b read@103", "b got b2", "b complete");
    held.endTurn();
    assertThat(seen).hasSize(12);
    // The next turn holds again, from zero.
    held.beginTurn();
    a.writeInbound(text("a3"));
    assertThat(seen).hasSize(12);
    held.endTurn();
    assertThat(seen).hasSize(15);
  }
}
