package dev.tokenmeter.proxy;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Picks the upstream of a request: the upstream a routing header names (when configured and
 * present), else the first route whose model glob matches the request's {@code model}, else the
 * first upstream. Immutable and thread-safe.
 *
 * <p>Routes are model-name globs ({@code *} any run of characters, {@code ?} one), tried in order.
 */
public final class Routing {
  private final Map<String, Upstream> upstreams;
  private final List<Route> routes;
  private final List<Pattern> patterns;
  private final String headerOrNull;

  /** One rule: requests whose model matches {@code glob} go to {@code upstream}. */
  public record Route(String glob, String upstream) {
    public Route {
      Objects.requireNonNull(glob, "glob");
      Objects.requireNonNull(upstream, "upstream");
    }
  }

  /**
   * @param upstreams by name, in the order given; the first is the default
   * @param routes tried in order
   * @param headerOrNull a request header whose value names the upstream ({@code x-upstream}), or
   *     null
   */
  public Routing(Map<String, Upstream> upstreams, List<Route> routes, String headerOrNull) {
    if (upstreams.isEmpty()) {
      throw new IllegalArgumentException("at least one upstream is needed");
    }
    this.upstreams = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(upstreams));
    this.routes = List.copyOf(routes);
    this.patterns = this.routes.stream().map(r -> globPattern(r.glob())).toList();
    this.headerOrNull = headerOrNull;
    for (Route r : routes) {
      if (!upstreams.containsKey(r.upstream())) {
        throw new IllegalArgumentException(
            "route '" + r.glob() + "=" + r.upstream() + "' names no upstream; upstreams: "
                + String.join(", ", upstreams.keySet()));
      }
    }
  }

  /** One upstream, no routes. */
  public static Routing single(Upstream upstream) {
    return new Routing(Map.of(upstream.name(), upstream), List.of(), null);
  }

  /** The upstreams by name, in the order given. */
  public Map<String, Upstream> upstreams() {
    return upstreams;
  }

  /** The routes, in the order they are tried. */
  public List<Route> routes() {
    return routes;
  }

  /** The routing header, or null. */
  public String headerOrNull() {
    return headerOrNull;
  }

  /** The default upstream (the first). */
  public Upstream first() {
    return upstreams.values().iterator().next();
  }

  /**
   * The upstream for a request, or null when the routing header names an unknown upstream (the
   * caller answers 400).
   */
  public Upstream route(String modelOrNull, HttpHeaders headers) {
    if (headerOrNull != null) {
      String named = headers.get(headerOrNull);
      if (named != null && !named.isBlank()) {
        return upstreams.get(named.strip());
      }
    }
    if (modelOrNull != null) {
      for (int i = 0; i < routes.size(); i++) {
        if (patterns.get(i).matcher(modelOrNull).matches()) {
          return upstreams.get(routes.get(i).upstream());
        }
      }
    }
    return first();
  }

  /** The regular expression of a glob: {@code *} any run, {@code ?} one character, rest literal. */
  static Pattern globPattern(String glob) {
    StringBuilder re = new StringBuilder();
    StringBuilder literal = new StringBuilder();
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      if (c == '*' || c == '?') {
        if (!literal.isEmpty()) {
          re.append(Pattern.quote(literal.toString()));
          literal.setLength(0);
        }
        re.append(c == '*' ? ".*" : ".");
      } else {
        literal.append(c);
      }
    }
    if (!literal.isEmpty()) {
      re.append(Pattern.quote(literal.toString()));
    }
    return Pattern.compile(re.toString(), Pattern.DOTALL);
  }
}
