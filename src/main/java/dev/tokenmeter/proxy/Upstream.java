package dev.tokenmeter.proxy;

import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * A server the proxy forwards to. Immutable.
 *
 * @param name the name routes and records use ({@code default} for a lone {@code --upstream URL})
 * @param host the host to connect to
 * @param port the TCP port
 * @param apiKeyOrNull the key sent upstream as {@code Authorization: Bearer ...} in place of the
 *     client's, read from the environment variable the configuration names; null to pass the
 *     client's {@code Authorization} on. Never printed: {@link #toString()} leaves it out.
 */
public record Upstream(String name, String host, int port, String apiKeyOrNull) {

  /** The name of the upstream given without one. */
  public static final String DEFAULT_NAME = "default";

  public Upstream {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(host, "host");
  }

  /**
   * Parses {@code http://host:port}: the request's path is passed on unchanged, so the URL has no
   * path of its own.
   *
   * @throws IllegalArgumentException naming what is wrong and how to write it
   */
  public static Upstream parse(String name, String url, String apiKeyOrNull) {
    URI uri;
    try {
      uri = URI.create(url.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "upstream " + name + ": '" + url + "' is not a URL; write http://HOST:PORT");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http")) {
      throw new IllegalArgumentException(
          "upstream " + name + ": '" + url + "' must start with http:// (TLS to upstreams is not"
              + " supported yet; put the proxy next to the server)");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException(
          "upstream " + name + ": '" + url + "' has no host; write http://HOST:PORT");
    }
    String path = uri.getRawPath();
    if ((path != null && !path.isEmpty() && !path.equals("/")) || uri.getRawQuery() != null) {
      throw new IllegalArgumentException(
          "upstream " + name + ": '" + url + "' has a path; give http://HOST:PORT only, the"
              + " client's path (/v1/...) is passed on as it is");
    }
    return new Upstream(name, uri.getHost(), uri.getPort() < 0 ? 80 : uri.getPort(), apiKeyOrNull);
  }

  /** The value of the {@code Host} header for this upstream. */
  public String hostHeader() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return port == 80 ? h : h + ":" + port;
  }

  @Override
  public String toString() {
    return name + "=http://" + hostHeader() + (apiKeyOrNull == null ? "" : " (with its own API key)");
  }
}
