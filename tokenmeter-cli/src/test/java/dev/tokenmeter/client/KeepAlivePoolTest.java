package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The keep-alive pool bench's endpoints and the proxy's upstream connections share. */
class KeepAlivePoolTest {
  private final KeepAlivePool pool = new KeepAlivePool();

  private EmbeddedChannel opened() {
    EmbeddedChannel ch = new EmbeddedChannel();
    pool.opened(ch);
    return ch;
  }

  @Test
  void aConnectionIsReusedOnlyAfterItsResponseEndedAndMostRecentFirst() {
    EmbeddedChannel a = opened();
    EmbeddedChannel b = opened();
    assertThat(pool.poll()).as("nothing released yet: both still carry a request").isNull();

    assertThat(pool.release(a, /* keepAlive= */ true)).isTrue();
    assertThat(pool.release(b, /* keepAlive= */ true)).isTrue();

    assertThat(pool.poll()).isSameAs(b);
    assertThat(pool.poll()).isSameAs(a);
    assertThat(pool.poll()).as("each is handed out once").isNull();
  }

  @Test
  void aConnectionTheServerDoesNotKeepAliveIsClosedNotPooled() {
    EmbeddedChannel a = opened();

    assertThat(pool.release(a, /* keepAlive= */ false)).isFalse();

    assertThat(a.isOpen()).isFalse();
    assertThat(pool.poll()).isNull();
  }

  @Test
  void aConnectionThatClosesWhileIdleLeavesThePoolAtOnce() {
    EmbeddedChannel a = opened();
    EmbeddedChannel b = opened();
    pool.release(a, true);
    pool.release(b, true);

    b.close(); // the server's keep-alive timeout
    a.runPendingTasks();

    assertThat(pool.idle()).isEqualTo(1);
    assertThat(pool.poll()).isSameAs(a);
  }

  @Test
  void anInactiveConnectionIsNeitherPooledNorHandedOut() {
    EmbeddedChannel a = new EmbeddedChannel(); // not registered with opened(): no close listener
    pool.release(a, true);
    a.close();

    assertThat(pool.poll()).isNull();

    EmbeddedChannel b = opened();
    b.close();
    assertThat(pool.release(b, true)).isFalse();
    assertThat(pool.idle()).isZero();
  }

  @Test
  void retiringClosesTheIdleAndRefusesTheBusyWhenTheirRequestEnds() {
    EmbeddedChannel idle = opened();
    EmbeddedChannel busy = opened();
    pool.release(idle, true);

    List<ChannelFuture> closing = pool.retire();

    assertThat(closing).hasSize(1);
    assertThat(idle.isOpen()).isFalse();
    assertThat(pool.release(busy, true)).as("opened before the retire").isFalse();
    assertThat(busy.isOpen()).isFalse();

    EmbeddedChannel fresh = opened();
    assertThat(pool.release(fresh, true)).as("opened after the retire").isTrue();
    assertThat(pool.poll()).isSameAs(fresh);
  }
}
