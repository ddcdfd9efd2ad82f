package dev.tokenmeter.testkit;

import dev.tokenmeter.core.loadgen.Endpoint;
import dev.tokenmeter.core.loadgen.Exchange;
import dev.tokenmeter.core.loadgen.ExchangeListener;
import dev.tokenmeter.core.loadgen.Loop;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import dev.tokenmeter.simulator.virtual.VirtualLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * An {@link Endpoint} in virtual time that answers every request with a scripted stream: sent
 * after {@code sendNanos}, first token after {@code ttftNanos}, then one token per {@code
 * itlNanos}, finish and usage (unless {@link #withoutUsage}) with the last token. A script with {@code tokens == -1} never
 * answers (for timeout tests); {@code tokens == -2} fails to connect after {@code sendNanos}. Records the peak number of exchanges in flight.
 */
public final class ScriptedEndpoint implements Endpoint {
  /** How one request is answered. */
  public record Script(long sendNanos, long ttftNanos, long itlNanos, int tokens) {}

  private final VirtualLoop loop;
  private final Function<RequestSpec, Script> scripts;
  private final List<RequestSpec> started = new ArrayList<>();
  private int inFlight;
  private int peakInFlight;
  private boolean usage = true;

  public ScriptedEndpoint(VirtualLoop loop, Function<RequestSpec, Script> scripts) {
    this.loop = loop;
    this.scripts = scripts;
  }

  public ScriptedEndpoint(VirtualLoop loop, Script script) {
    this(loop, spec -> script);
  }

  @Override
  public Loop loop() {
    return loop;
  }

  /** Streams end without a usage chunk (a server that does not report usage), for output counting. */
  public ScriptedEndpoint withoutUsage() {
    usage = false;
    return this;
  }

  public List<RequestSpec> started() {
    return started;
  }

  public int peakInFlight() {
    return peakInFlight;
  }

  @Override
  public Exchange start(RequestSpec spec, ExchangeListener listener) {
    started.add(spec);
    inFlight++;
    peakInFlight = Math.max(peakInFlight, inFlight);
    Script s = scripts.apply(spec);
    ScriptedExchange x = new ScriptedExchange(listener);
    if (s.tokens() == -2) {
      loop.schedule(() -> x.end(new Outcome.ConnectFailed("refused"), loop.nanos()), s.sendNanos());
      return x;
    }
    loop.schedule(() -> x.run(() -> listener.sent(loop.nanos())), s.sendNanos());
    if (s.tokens() < 0) {
      return x;
    }
    loop.schedule(() -> x.run(() -> listener.headers(200, loop.nanos())), s.sendNanos() + s.ttftNanos() / 2);
    for (int i = 0; i < s.tokens(); i++) {
      boolean last = i == s.tokens() - 1;
      long at = s.sendNanos() + s.ttftNanos() + i * s.itlNanos();
      loop.schedule(
          () ->
              x.run(
                  () -> {
                    long now = loop.nanos();
                    listener.item(new StreamItem.Text(" tok", TextKind.CONTENT), now);
                    if (last) {
                      listener.item(new StreamItem.Finish("length"), now);
                      if (usage) {
                        listener.item(new StreamItem.Usage(10, s.tokens(), -1), now);
                      }
                      listener.item(new StreamItem.Done(), now);
                      x.end(new Outcome.Completed("length"), now);
                    }
                  }),
          at);
    }
    return x;
  }

  @Override
  public void close() {}

  private final class ScriptedExchange implements Exchange {
    private final ExchangeListener listener;
    private boolean ended;

    ScriptedExchange(ExchangeListener listener) {
      this.listener = listener;
    }

    void run(Runnable r) {
      if (!ended) {
        r.run();
      }
    }

    void end(Outcome o, long nanos) {
      if (!ended) {
        ended = true;
        inFlight--;
        listener.end(o, nanos);
      }
    }

    @Override
    public void abort(Outcome outcome) {
      end(outcome, loop.nanos());
    }
  }
}
