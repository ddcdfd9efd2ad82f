package dev.tokenmeter.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The hop-by-hop headers of RFC 9110 §7.6.1, which a proxy must not forward: {@code Connection}
 * and every header it names, {@code Keep-Alive}, {@code Proxy-Connection}, {@code TE}, {@code
 * Trailer}, {@code Transfer-Encoding} and {@code Upgrade}. Stateless.
 */
final class HopByHop {
  private static final List<CharSequence> FIXED =
      List.of(
          HttpHeaderNames.CONNECTION,
          "keep-alive",
          "proxy-connection",
          HttpHeaderNames.TE,
          HttpHeaderNames.TRAILER,
          HttpHeaderNames.TRANSFER_ENCODING,
          HttpHeaderNames.UPGRADE);

  private HopByHop() {}

  /** Removes the hop-by-hop headers from {@code headers}, in place, and returns it. */
  static HttpHeaders strip(HttpHeaders headers) {
    List<String> named = new ArrayList<>();
    for (String value : headers.getAll(HttpHeaderNames.CONNECTION)) {
      for (String token : value.split(",")) {
        String name = token.strip().toLowerCase(Locale.ROOT);
        if (!name.isEmpty()) {
          named.add(name);
        }
      }
    }
    for (String name : named) {
      headers.remove(name);
    }
    for (CharSequence name : FIXED) {
      headers.remove(name);
    }
    return headers;
  }
}
