package dev.tokenmeter.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.client.TlsSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The upstreams and routes sections: reads a settings file's {@code upstreams:} into {@link
 * ProxySettings}, noting mistakes of form, and checks the upstreams and routes as written (from
 * the file or flags) into {@link Upstream}s and {@link Routing.Route}s, each mistake one line.
 */
final class UpstreamsSettings {
  private UpstreamsSettings() {}

  /**
   * {@code upstreams:} as a list of mappings ({@code - {name: a, url: URL}}), or as a mapping of
   * name to URL ({@code a: URL}) or to the same mapping without its name ({@code a: {url: URL,
   * api_key_env: ...}}), in the order written. An entry's {@code max_in_flight} is that upstream's
   * in-flight limit; relative {@code ca_cert} names are resolved against the file's folder.
   *
   * @param v the {@code upstreams} node, or null
   */
  static void read(SettingsFileReader r, JsonNode v) {
    ProxySettings s = r.s;
    if (v != null && v.isObject()) {
      for (Map.Entry<String, JsonNode> e : v.properties()) {
        JsonNode u = e.getValue();
        if (u.isTextual()) {
          s.upstreams.add(new ProxySettings.UpstreamSpec(e.getKey(), u.asText(), null));
        } else if (u.isObject()) {
          add(r, e.getKey(), u);
        } else {
          s.problem("upstreams: '" + e.getKey() + "' must be a URL or a mapping (url, api_key_env, ca_cert), got '"
              + u.asText() + "'");
        }
      }
      return;
    }
    if (v != null && !v.isNull() && !v.isArray()) {
      s.problem("upstreams: expected a list of {name, url} or a mapping of name to URL, got '" + v.asText() + "'");
      return;
    }
    for (JsonNode u : r.entries(v, "upstreams")) {
      add(r, r.text(u, "name"), u);
    }
  }

  private static void add(SettingsFileReader r, String nameOrNull, JsonNode u) {
    r.s.upstreams.add(new ProxySettings.UpstreamSpec(nameOrNull, r.text(u, "url"), r.text(u, "api_key_env"),
        r.path(r.text(u, "ca_cert"))));
    Integer limit = r.integer(u, "max_in_flight");
    if (limit != null) {
      r.s.maxInFlightByUpstream.put(nameOrNull == null ? Upstream.DEFAULT_NAME : nameOrNull.strip(), limit);
    }
  }

  /** The upstreams' names as routes and limits name them, in order ({@link Upstream#DEFAULT_NAME} for a lone unnamed one). */
  static List<String> declared(List<ProxySettings.UpstreamSpec> upstreams) {
    return upstreams.stream().map(u -> u.name() == null ? Upstream.DEFAULT_NAME : u.name().strip()).toList();
  }

  /**
   * The upstreams by name, each checked: a name once, a url, its {@code api_key_env} set in {@code
   * env}, its CA file ({@code caCert}, the proxy-wide one, when it names none) readable.
   */
  static Map<String, Upstream> resolve(List<ProxySettings.UpstreamSpec> upstreams, String caCert,
      Map<String, String> env, List<String> errors) {
    Map<String, Upstream> byName = new LinkedHashMap<>();
    if (upstreams.isEmpty()) {
      errors.add("no upstream: give --upstream http://HOST:PORT (or NAME=URL, once per upstream)");
    }
    boolean unnamed = upstreams.stream().anyMatch(u -> u.name() == null);
    if (unnamed && upstreams.size() > 1) {
      errors.add("several upstreams need a name each: --upstream NAME=URL");
      return byName;
    }
    Set<String> seen = new java.util.HashSet<>();
    for (ProxySettings.UpstreamSpec u : upstreams) {
      String name = u.name() == null ? Upstream.DEFAULT_NAME : u.name().strip();
      if (!seen.add(name)) {
        errors.add("upstream '" + name + "' is given twice");
        continue;
      }
      if (u.url() == null || u.url().isBlank()) {
        errors.add("upstream '" + name + "' has no url");
        continue;
      }
      String key = null;
      if (u.apiKeyEnv() != null) {
        key = env.get(u.apiKeyEnv());
        if (key == null || key.isBlank()) {
          errors.add("upstream '" + name + "': environment variable " + u.apiKeyEnv()
              + " (api_key_env) is not set; export it before starting the proxy");
          continue;
        }
      }
      String ca = u.caCert() != null ? u.caCert() : caCert;
      try {
        Upstream up = Upstream.parse(name, u.url(), key, ca == null ? null : Path.of(ca));
        if (up.tls()) {
          new TlsSettings(up.caCertOrNull(), false).nettyContext(); // a bad CA file fails here
        }
        byName.put(name, up);
      } catch (IllegalArgumentException e) {
        errors.add(e.getMessage().replace("--ca-cert ", "upstream '" + name + "': CA certificate "));
      }
    }
    return byName;
  }

  /** The routes, each naming {@code declared} upstreams only, in order. */
  static List<Routing.Route> routes(List<ProxySettings.RouteSpec> routes, List<String> declared, List<String> errors) {
    List<Routing.Route> routeList = new ArrayList<>();
    for (ProxySettings.RouteSpec r : routes) {
      if (r.model() == null || r.model().isBlank() || r.upstream() == null) {
        errors.add("route '" + (r.model() == null ? "" : r.model()) + (r.upstream() == null ? "" : "=" + r.upstream())
            + "': write MODEL_GLOB=UPSTREAM, e.g. 'gpt-*=openai'");
      } else if (!declared.containsAll(new Routing.Route(r.model(), r.upstream()).names())) {
        errors.add("route '" + r.model() + "=" + r.upstream() + "' names no upstream; upstreams: "
            + String.join(", ", declared));
      } else {
        routeList.add(new Routing.Route(r.model(), r.upstream()));
      }
    }
    return routeList;
  }
}
