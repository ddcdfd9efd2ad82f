package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.request.RequestSpec;
import java.util.List;

/**
 * The port through which the engine sends requests: one implementation per API (OpenAI chat,
 * completions, ...). The engine knows nothing of HTTP or JSON; an endpoint knows nothing of load
 * models or metrics.
 *
 * <p>Threading: {@link #start} and every {@link ExchangeListener} callback run on {@link
 * #loop()}. Timestamps are taken once per socket read, before parsing, so every item parsed from
 * one read carries the same time.
 */
public interface Endpoint extends AutoCloseable {

  /** The event loop that runs this endpoint's I/O and on which the engine schedules its work. */
  Loop loop();

  /**
   * Every event loop that reads this endpoint's sockets, {@link #loop()} first: the engine probes
   * each one's lag, since a late loop stamps its reads late. One, unless the endpoint spreads its
   * connections over several.
   */
  default List<Loop> loops() {
    return List.of(loop());
  }

  /**
   * Starts one exchange. Must be called on {@link #loop()}. The listener receives, in order: at
   * most one {@code connected}, at most one {@code sent}, at most one {@code headers}, any number
   * of {@code item}, and exactly one {@code end}.
   */
  Exchange start(RequestSpec spec, ExchangeListener listener);

  /** Closes every connection and releases the event loop. */
  @Override
  void close();
}
