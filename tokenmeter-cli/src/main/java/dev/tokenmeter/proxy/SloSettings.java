package dev.tokenmeter.proxy;

import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.governance.LiveSlo;
import dev.tokenmeter.governance.SloScope;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/** Checks the SLO settings as written and builds the live SLOs. Stateless. */
final class SloSettings {
  private SloSettings() {}

  /**
   * Parses the {@code --slo} flag form {@code [SCOPE:]OBJECTIVES}, where SCOPE is {@code
   * KEY=VALUE} pairs (model, upstream, tenant) separated by {@code ;}: {@code
   * "tenant=acme;model=llama*: ttft.p99<=800ms,errors<=1%"}. A scope that cannot be read keeps the
   * whole text as its objective and a null scope key, for {@link #slos} to name.
   */
  static ProxySettings.SloSpec flag(String text) {
    int colon = text.indexOf(':');
    if (colon < 0) {
      return new ProxySettings.SloSpec(text, null, null, null);
    }
    String model = null;
    String upstream = null;
    String tenant = null;
    for (String pair : text.substring(0, colon).split(";")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? "" : pair.substring(0, eq).strip().toLowerCase(Locale.ROOT);
      String value = eq < 0 ? "" : pair.substring(eq + 1).strip();
      switch (key) {
        case "model" -> model = value;
        case "upstream" -> upstream = value;
        case "tenant" -> tenant = value;
        default -> {
          return new ProxySettings.SloSpec(null, null, null, text);
        }
      }
    }
    return new ProxySettings.SloSpec(text.substring(colon + 1), model, upstream, tenant);
  }

  /**
   * The live SLOs, one per objective, with every mistake added to {@code errors}, one line each.
   *
   * @param upstreams the upstreams declared, or null to leave an upstream scope unchecked
   * @param tenantsKnown whether every tenant is known at start (then an SLO of another is a mistake)
   */
  static List<LiveSlo> slos(List<ProxySettings.SloSpec> specs, Set<String> upstreams, Tenants tenants,
      boolean tenantsKnown, List<String> errors) {
    Set<String> known = tenants.knownAtStart();
    List<LiveSlo> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (ProxySettings.SloSpec s : specs) {
      if (s.objective() == null) {
        errors.add(s.tenant() != null && s.model() == null && s.upstream() == null
            ? "--slo '" + s.tenant() + "': the scope before ':' takes model=GLOB;upstream=NAME;tenant=NAME,"
                + " e.g. 'tenant=acme;model=llama*: ttft.p99<=800ms'"
            : "SLO without an objective: write objective: \"ttft.p99<=800ms,errors<=1%\"");
        continue;
      }
      String where = "SLO '" + s.objective().strip() + "'";
      boolean ok = true;
      if (blank(s.model()) || blank(s.upstream()) || blank(s.tenant())) {
        errors.add(where + ": an empty model, upstream or tenant; leave it out to mean any");
        ok = false;
      }
      if (s.upstream() != null && upstreams != null && !upstreams.contains(s.upstream())) {
        errors.add(where + ": no upstream '" + s.upstream() + "'; upstreams: " + String.join(", ", new TreeSet<>(upstreams)));
        ok = false;
      }
      if (tenantsKnown && s.tenant() != null && !known.contains(s.tenant())) {
        errors.add(where + ": no tenant '" + s.tenant() + "' in the keys file; tenants: " + String.join(", ", known));
        ok = false;
      }
      Slo slo;
      try {
        slo = Slo.parse(s.objective());
      } catch (IllegalArgumentException e) {
        errors.add(e.getMessage());
        continue;
      }
      SloScope scope = new SloScope(s.model(), s.upstream(), s.tenant());
      for (Slo.Objective o : slo.objectives()) {
        try {
          LiveSlo live = LiveSlo.of(o, scope);
          if (!names.add(live.name())) {
            errors.add("SLO '" + live.name() + "' is given twice; keep one");
          } else if (ok) {
            out.add(live);
          }
        } catch (IllegalArgumentException e) {
          errors.add(e.getMessage());
        }
      }
    }
    return out;
  }

  /** The SLOs of {@code s} alone, for {@link ProxySettings#resolveSlos}; {@code problems}: those found reading it. */
  static List<LiveSlo> only(ProxySettings s, List<String> problems) {
    List<String> errors = new ArrayList<>(problems);
    Tenants tenants = SettingsFiles.tenants(s.keysFile, s.tenantHeader, s.unknownKeys, errors);
    Set<String> declared = s.upstreams.isEmpty() ? null : new HashSet<>(
        s.upstreams.stream().map(u -> u.name() == null ? Upstream.DEFAULT_NAME : u.name().strip()).toList());
    List<LiveSlo> live = slos(s.slos, declared, tenants, s.keysFile != null && s.tenantHeader == null, errors);
    if (live.isEmpty() && errors.isEmpty()) {
      errors.add("no SLO: give --slo \"ttft.p99<=750ms,errors<=1%\" or a --config file with slos:");
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(String.join("\n", errors));
    }
    return live;
  }

  private static boolean blank(String s) {
    return s != null && s.isBlank();
  }
}
