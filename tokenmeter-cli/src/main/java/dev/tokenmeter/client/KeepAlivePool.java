package dev.tokenmeter.client;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.AttributeKey;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Idle HTTP/1.1 keep-alive connections to one server, most recently used first: the one pool of
 * bench's endpoints ({@link ApiEndpoint}) and of the proxy's upstream connections. Confined to one
 * event loop (the loop of every connection in it); not thread-safe.
 *
 * <p>The rules both sides follow:
 *
 * <ul>
 *   <li>A connection goes back ({@link #release(Channel, boolean)}) only after its response ended
 *       cleanly, and only if the server keeps it alive; otherwise it is closed.
 *   <li>A connection that closes while idle leaves the pool at once; {@link #poll()} also skips any
 *       that is no longer active.
 *   <li>{@link #retire()} closes the idle connections and retires those carrying a request: they are
 *       closed, not pooled, when that request ends.
 * </ul>
 *
 * <p>Usage: {@code opened(ch)} once per new connection, {@code poll()} before opening one, {@code
 * release(ch, keepAlive)} when a response ended cleanly. A request written on a pooled connection
 * that turns out stale is sent again by the rule of {@link StaleResend}.
 */
public final class KeepAlivePool {
  private static final AttributeKey<Integer> EPOCH = AttributeKey.valueOf("tokenmeter.pool.epoch");

  private final ArrayDeque<Channel> idle = new ArrayDeque<>();
  /** Bumped by {@link #retire()}; a connection opened in an older epoch is never pooled again. */
  private int epoch;

  /**
   * Registers a connection just opened to this pool's server: stamps its epoch and makes it leave
   * the pool if it closes while idle (the server's keep-alive timeout, a restart).
   */
  public void opened(Channel ch) {
    ch.attr(EPOCH).set(epoch);
    ch.closeFuture().addListener(f -> idle.remove(ch));
  }

  /** The most recently released connection that is still active, or null (none idle). */
  public Channel poll() {
    Channel ch;
    while ((ch = idle.pollFirst()) != null) {
      if (ch.isActive()) {
        return ch;
      }
    }
    return null;
  }

  /**
   * A response on {@code ch} ended cleanly: pools it when the server keeps it alive ({@code
   * keepAlive}), it is still active and was opened since the last {@link #retire()}; closes it
   * otherwise.
   *
   * @return whether it was pooled
   */
  public boolean release(Channel ch, boolean keepAlive) {
    Integer born = ch.attr(EPOCH).get();
    if (!keepAlive || (born != null && born != epoch) || !ch.isActive()) {
      ch.close();
      return false;
    }
    idle.addFirst(ch);
    return true;
  }

  /**
   * Closes every idle connection and retires the busy ones (closed when their request ends).
   *
   * @return the closes of the idle connections, one future each
   */
  public List<ChannelFuture> retire() {
    epoch++;
    List<ChannelFuture> closing = new ArrayList<>(idle.size());
    Channel ch;
    while ((ch = idle.pollFirst()) != null) {
      closing.add(ch.close());
    }
    return closing;
  }

  /** Idle connections now (some may have closed unseen since). */
  public int idle() {
    return idle.size();
  }
}
