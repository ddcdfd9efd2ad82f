package dev.tokenmeter.proxy;

import dev.tokenmeter.proxy.balance.Balance;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Arrays;
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
 * A route may name several upstreams serving the same model ({@code a,b}), a pool: a {@link
 * Balance} policy picks one of them per request (round-robin when none is given). With a balance
 * policy, requests no route matches go to the pool of all upstreams.
 */
public final class Routing {
  private final Map<String, Upstream> upstreams;
  private final List<Route> routes;
  private final List<Pattern> patterns;
  private final List<List<String>> pools;
  private final List<String> defaultPool;
  private final String headerOrNull;
  private final Balance balanceOrNull;

  /**
   * One rule: requests whose model matches {@code glob} go to {@code upstream}, or to one of
   * several upstreams written {@code a,b}.
   */
  public record Route(String glob, String upstream) {
    public Route {
      Objects.requireNonNull(glob, "glob");
      Objects.requireNonNull(upstream, "upstream");
    }

    /** The upstream names, one or several. */
    public List<String> names() {
      return Arrays.stream(upstream.split(",")).map(String::strip).toList();
    }
  }

  /**
   * @param upstreams by name, in the order given; the first is the default
   * @param routes tried in order
   * @param headerOrNull a request header whose value names the upstream ({@code x-upstream}), or
   *     null
   */
  public Routing(Map<String, Upstream> upstreams, List<Route> routes, String headerOrNull) {
    this(upstreams, routes, headerOrNull, null);
  }

  /**
   * As {@link #Routing(Map, List, String)}, with a balance policy for the routes that name several
   * upstreams (and for requests no route matches: all upstreams); null for none.
   *
   * @throws IllegalArgumentException for a route naming no upstream, or {@code tps} over one
   */
  public Routing(Map<String, Upstream> upstreams, List<Route> routes, String headerOrNull, Balance balanceOrNull) {
    if (upstreams.isEmpty()) {
      throw new IllegalArgumentException("at least one upstream is needed");
    }
    this.upstreams = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(upstreams));
    this.routes = List.copyOf(routes);
    this.patterns = this.routes.stream().map(r -> globPattern(r.glob())).toList();
    this.headerOrNull = headerOrNull;
    this.pools = this.routes.stream().map(Route::names).toList();
    boolean anyPool = pools.stream().anyMatch(p -> p.size() > 1);
    this.balanceOrNull = balanceOrNull == null && anyPool ? Balance.of(Balance.Policy.ROUND_ROBIN) : balanceOrNull;
    this.defaultPool = List.copyOf(balanceOrNull == null
        ? List.of(this.upstreams.keySet().iterator().next())
        : this.upstreams.keySet());
    if (balanceOrNull != null && balanceOrNull.policy() == Balance.Policy.TPS && upstreams.size() < 2) {
      throw new IllegalArgumentException(TPS_NEEDS_SEVERAL);
    }
    for (Route r : routes) {
      if (!upstreams.keySet().containsAll(r.names())) {
        throw new IllegalArgumentException(
            "route '" + r.glob() + "=" + r.upstream() + "' names no upstream; upstreams: "
                + String.join(", ", upstreams.keySet()));
      }
    }
  }

  /** Why {@code --balance tps} over one upstream is refused, and the fix. */
  public static final String TPS_NEEDS_SEVERAL =
      "--balance tps needs two or more upstreams serving the same model; give each as"
          + " --upstream NAME=URL, or drop --balance for a single one";

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

  /** The balance policy of pools, or null when there are none. */
  public Balance balanceOrNull() {
    return balanceOrNull;
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
    List<String> pool = pool(modelOrNull, headers);
    return pool == null ? null : upstreams.get(pool.get(0));
  }

  /**
   * The names of the upstreams a request may go to (one, or a pool to balance over), or null when
   * the routing header names an unknown upstream (the caller answers 400).
   */
  public List<String> pool(String modelOrNull, HttpHeaders headers) {
    if (headerOrNull != null) {
      String named = headers.get(headerOrNull);
      if (named != null && !named.isBlank()) {
        return upstreams.containsKey(named.strip()) ? List.of(named.strip()) : null;
      }
    }
    if (modelOrNull != null) {
      for (int i = 0; i < routes.size(); i++) {
        if (patterns.get(i).matcher(modelOrNull).matches()) {
          return pools.get(i);
        }
      }
    }
    return defaultPool;
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
