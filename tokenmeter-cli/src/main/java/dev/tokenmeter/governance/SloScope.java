package dev.tokenmeter.governance;

import dev.tokenmeter.ledger.MeteredRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which live requests an SLO judges: those whose model matches a glob ({@code *} and {@code ?}),
 * routed to one upstream, of one tenant; a null part matches every request. Immutable.
 *
 * @param modelGlobOrNull a glob over the request's {@code model}, or null for any model
 * @param upstreamOrNull an upstream name, or null for any
 * @param tenantOrNull a tenant, or null for any
 */
public record SloScope(String modelGlobOrNull, String upstreamOrNull, String tenantOrNull) {
  /** Every request. */
  public static final SloScope ALL = new SloScope(null, null, null);

  /** Whether {@code r} is in scope. */
  public boolean matches(MeteredRequest r) {
    return (tenantOrNull == null || tenantOrNull.equals(r.tenant()))
        && (upstreamOrNull == null || upstreamOrNull.equals(r.upstream()))
        && (modelGlobOrNull == null || r.model() != null && globRegex(modelGlobOrNull).matcher(r.model()).matches());
  }

  /** {@code model=llama* tenant=acme}, or {@code all traffic}. */
  public String describe() {
    List<String> parts = new ArrayList<>();
    if (modelGlobOrNull != null) {
      parts.add("model=" + modelGlobOrNull);
    }
    if (upstreamOrNull != null) {
      parts.add("upstream=" + upstreamOrNull);
    }
    if (tenantOrNull != null) {
      parts.add("tenant=" + tenantOrNull);
    }
    return parts.isEmpty() ? "all traffic" : String.join(" ", parts);
  }

  /** The regular expression (Java and Prometheus RE2 alike) that a glob stands for, anchored by the caller. */
  public static String globToRegex(String glob) {
    StringBuilder re = new StringBuilder();
    for (char c : glob.toCharArray()) {
      switch (c) {
        case '*' -> re.append(".*");
        case '?' -> re.append('.');
        default -> {
          if ("\\.[]{}()+-^$|".indexOf(c) >= 0) {
            re.append('\\');
          }
          re.append(c);
        }
      }
    }
    return re.toString();
  }

  private static Pattern globRegex(String glob) {
    return Pattern.compile(globToRegex(glob));
  }
}
