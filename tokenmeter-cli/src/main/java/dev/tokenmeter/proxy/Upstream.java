package dev.tokenmeter.proxy;

import java.net.URI;
import java.nio.file.Path;
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
 * @param tls whether the upstream is {@code https://}
 * @param caCertOrNull a PEM file of the certificates to trust for it, else the JDK's trust store
 */
public record Upstream(
    String name, String host, int port, String apiKeyOrNull, boolean tls, Path caCertOrNull) {

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
    return parse(name, url, apiKeyOrNull, null);
  }

  /** As {@link #parse(String, String, String)}, also {@code https://HOST:PORT}, trusting {@code caCertOrNull}. */
  public static Upstream parse(String name, String url, String apiKeyOrNull, Path caCertOrNull) {
    URI uri;
    try {
      uri = URI.create(url.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "upstream " + name + ": '" + url + "' is not a URL; write http://HOST:PORT");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException(
          "upstream " + name + ": '" + url + "' must start with http:// or https://");
    }
    boolean tls = scheme.equals("https");
    if (uri.getHost() == null) {
      throw new IllegalArgumentException(
          "upstream " + name + ": '" + url + "' has no host; write " + scheme + "://HOST:PORT");
    }
    String path = uri.getRawPath();
    if ((path != null && !path.isEmpty() && !path.equals("/")) || uri.getRawQuery() != null) {
      throw new IllegalArgumentException(
          "upstream " + name + ": '" + url + "' has a path; give http://HOST:PORT only, the"
              + " client's path (/v1/...) is passed on as it is");
    }
    int port = uri.getPort() >= 0 ? uri.getPort() : tls ? 443 : 80;
    return new Upstream(name, uri.getHost(), port, apiKeyOrNull, tls, tls ? caCertOrNull : null);
  }

  /** The value of the {@code Host} header for this upstream. */
  public String hostHeader() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return port == (tls ? 443 : 80) ? h : h + ":" + port;
  }

  @Override
  public String toString() {
    return name + (tls ? "=https://" : "=http://") + hostHeader()
        + (apiKeyOrNull == null ? "" : " (with its own API key)");
  }
}
