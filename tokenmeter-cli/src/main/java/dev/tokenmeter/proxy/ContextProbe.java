package dev.tokenmeter.proxy;

import dev.tokenmeter.client.TlsSettings;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * Asks each upstream's {@code /v1/models} once, at start, for its models' context lengths ({@link
 * ContextLengths#learn}), on one virtual thread that ends by itself: 5 s at most per upstream. An
 * upstream that is down, refuses, or lists no lengths teaches nothing; requests to its models hold
 * {@code budget_default_output_tokens} until a setting names their length.
 */
final class ContextProbe {
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  private ContextProbe() {}

  /** Starts the probe of {@code upstreams}; returns its thread. */
  static Thread start(Collection<Upstream> upstreams, ContextLengths into) {
    List<Upstream> all = List.copyOf(upstreams);
    return Thread.ofVirtual().name("tokenmeter-context-probe").start(() -> all.forEach(u -> probe(u, into)));
  }

  static void probe(Upstream u, ContextLengths into) {
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(TIMEOUT);
    if (u.tls()) {
      b.sslContext(new TlsSettings(u.caCertOrNull(), false).jdkContext());
    }
    URI uri = URI.create((u.tls() ? "https://" : "http://") + u.hostHeader() + "/v1/models");
    HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET();
    if (u.apiKeyOrNull() != null) {
      req.header("Authorization", "Bearer " + u.apiKeyOrNull());
    }
    try (HttpClient http = b.build()) {
      HttpResponse<String> r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 200) {
        into.learn(r.body());
      }
    } catch (IOException | RuntimeException unreachable) {
      // nothing learned: the default holds
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
