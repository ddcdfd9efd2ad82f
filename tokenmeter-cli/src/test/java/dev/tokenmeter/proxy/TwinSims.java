package dev.tokenmeter.proxy;

import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import dev.tokenmeter.ledger.MeteredRequest;

/**
 * Sends one request to a fresh simulator directly and the same request through a fresh proxy to
 * its twin (same seed, same frozen clock, same faults), so that both answers must be byte for byte
 * the same.
 */
public final class TwinSims {
  /** Both answers and what the proxy recorded. */
  public record Result(RawHttp.Response direct, RawHttp.Response proxied, List<MeteredRequest> records) {}

  private TwinSims() {}

  public static SimFixture sim(Faults faults) {
    return SimFixture.start(
        SimFixture.config(10, 5)
            .faults(faults)
            .wallClock(InstantSource.fixed(Instant.ofEpochSecond(1_700_000_000L))));
  }

  public static Result send(Faults faults, String method, String path, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    RawHttp.Response direct;
    try (SimFixture a = sim(faults)) {
      direct = RawHttp.send(a.baseUrl(), method, path, bytes);
    }
    try (SimFixture b = sim(faults); ProxyFixture proxy = ProxyFixture.start(b.baseUrl())) {
      RawHttp.Response proxied = RawHttp.send(proxy.baseUrl(), method, path, bytes);
      proxy.awaitRecords(1);
      ProxyFixture.sleepMillis(50); // a second record would be a bug: give it the time to show
      return new Result(direct, proxied, List.copyOf(proxy.records));
    }
  }
}
