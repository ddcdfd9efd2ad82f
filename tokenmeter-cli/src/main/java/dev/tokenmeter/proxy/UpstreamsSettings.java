package dev.tokenmeter.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;

/** Reads a settings file's {@code upstreams:} into {@link ProxySettings}, noting mistakes of form. */
final class UpstreamsSettings {
  private UpstreamsSettings() {}

  /**
   * {@code upstreams:} as a list of mappings ({@code - {name: a, url: URL}}), or as a mapping of
   * name to URL ({@code a: URL}) or to the same mapping without its name ({@code a: {url: URL,
   * api_key_env: ...}}), in the order written. An entry's {@code max_in_flight} is that upstream's
   * in-flight limit.
   *
   * @param v the {@code upstreams} node, or null
   * @param dir the file's folder, for relative {@code ca_cert} names
   */
  static void read(ProxySettings s, JsonNode v, Path dir) {
    if (v != null && v.isObject()) {
      for (Map.Entry<String, JsonNode> e : v.properties()) {
        JsonNode u = e.getValue();
        if (u.isTextual()) {
          s.upstreams.add(new ProxySettings.UpstreamSpec(e.getKey(), u.asText(), null));
        } else if (u.isObject()) {
          add(s, e.getKey(), u, dir);
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
    for (JsonNode u : s.entries(v, "upstreams")) {
      add(s, s.text(u, "name"), u, dir);
    }
  }

  private static void add(ProxySettings s, String nameOrNull, JsonNode u, Path dir) {
    s.upstreams.add(new ProxySettings.UpstreamSpec(nameOrNull, s.text(u, "url"), s.text(u, "api_key_env"),
        ProxySettings.path(dir, s.text(u, "ca_cert"))));
    Integer limit = s.integer(u, "max_in_flight");
    if (limit != null) {
      s.maxInFlightByUpstream.put(nameOrNull == null ? Upstream.DEFAULT_NAME : nameOrNull.strip(), limit);
    }
  }
}
