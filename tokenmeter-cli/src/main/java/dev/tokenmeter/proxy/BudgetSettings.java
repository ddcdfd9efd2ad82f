package dev.tokenmeter.proxy;

import dev.tokenmeter.governance.Budget;
import dev.tokenmeter.governance.BudgetPlan;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Checks the budget settings as written and builds the {@link BudgetPlan}. Stateless. */
final class BudgetSettings {
  private BudgetSettings() {}

  /**
   * Parses the {@code --budget} flag form {@code TENANT=LIMIT/PERIOD[/enforce]}, e.g. {@code
   * acme=2000000 tokens/day/enforce}; a form that cannot be split has no tenant and no period and
   * keeps the raw text as its limit, for {@link #plan} to name.
   */
  static ProxySettings.BudgetSpec flag(String text) {
    int eq = text.indexOf('=');
    String[] rest = eq < 0 ? new String[0] : text.substring(eq + 1).split("/");
    if (eq < 1 || rest.length < 2 || rest.length > 3) {
      return new ProxySettings.BudgetSpec(null, text, null, null);
    }
    String enforce = rest.length == 3 ? (rest[2].strip().equals("enforce") ? "true" : rest[2]) : "false";
    return new ProxySettings.BudgetSpec(text.substring(0, eq).strip(), rest[0], rest[1], enforce);
  }

  /**
   * The plan, with every mistake added to {@code errors}, one line each.
   *
   * @param tenantsKnown whether every tenant is known at start (a keys file and no tenant header):
   *     then a budget of another tenant is a mistake
   * @param syncMillis how often the fleet's spend is read, ms (0: off); null: the default
   */
  static BudgetPlan plan(List<ProxySettings.BudgetSpec> specs, Integer defaultOutput, String webhook,
      Tenants tenants, boolean tenantsKnown, Prices prices, Map<String, Integer> contextLengths,
      Long syncMillis, List<String> errors) {
    Set<String> known = tenants.knownAtStart();
    List<Budget> budgets = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (ProxySettings.BudgetSpec s : specs) {
      if ((s.tenant() == null || s.tenant().isBlank()) && s.period() == null && s.limit() != null) {
        errors.add("--budget '" + s.limit() + "': write TENANT=LIMIT/PERIOD[/enforce], e.g. 'acme=2000000 tokens/day/enforce'");
        continue;
      }
      if (s.tenant() == null || s.tenant().isBlank()) {
        errors.add("budget without a tenant: every budget names one (tenant: NAME)");
        continue;
      }
      if (tenantsKnown && !known.contains(s.tenant())) {
        errors.add("budget of '" + s.tenant() + "': no such tenant in the keys file; tenants: "
            + String.join(", ", new java.util.TreeSet<>(known)));
        continue;
      }
      Boolean enforce = bool(s.enforce());
      if (enforce == null) {
        errors.add("budget of '" + s.tenant() + "': enforce '" + s.enforce() + "' is not true or false");
        continue;
      }
      Budget b = Budget.parse(s.tenant(), s.limit(), s.period(), enforce, prices.currency(), errors);
      if (b != null && !seen.add(b.tenant() + " " + b.unit() + " " + b.period())) {
        errors.add("budget of '" + b.tenant() + "': two budgets in " + b.unit() + " per " + b.period().word()
            + "; keep one");
      } else if (b != null) {
        budgets.add(b);
      }
    }
    int out = defaultOutput == null ? BudgetPlan.DEFAULT_OUTPUT_TOKENS : defaultOutput;
    if (out < 0) {
      errors.add("budget_default_output_tokens must be 0 or more, got " + out);
      out = 0;
    }
    Map<String, Integer> contexts = new LinkedHashMap<>();
    contextLengths.forEach((glob, tokens) -> {
      if (glob == null || glob.isBlank() || tokens == null || tokens < 1) {
        errors.add("context length of '" + glob + "': not a whole number of tokens above 0; write MODEL_GLOB=TOKENS,"
            + " e.g. 'llama-3*=131072'");
      } else {
        contexts.put(glob.strip(), tokens);
      }
    });
    long syncNanos = syncMillis == null ? dev.tokenmeter.governance.BudgetSync.DEFAULT_INTERVAL_NANOS
        : syncMillis * 1_000_000L;
    if (syncMillis != null && (syncMillis < 0 || syncMillis > MAX_SYNC_MILLIS)) {
      errors.add("budget_sync_ms must be 0 (off) to " + MAX_SYNC_MILLIS + " (1 h), got " + syncMillis);
      syncNanos = 0;
    }
    return new BudgetPlan(budgets, out, webhook(webhook, errors), contexts, syncNanos);
  }

  /** The {@code --context-length GLOB=TOKENS} form, into {@code into}; a mistake is kept for {@link #plan}. */
  static void contextLengthFlag(String text, Map<String, Integer> into) {
    int eq = text.lastIndexOf('=');
    Integer tokens = null;
    try {
      tokens = eq < 0 ? null : Integer.valueOf(text.substring(eq + 1).strip().replace("_", ""));
    } catch (NumberFormatException e) {
      // reported by plan()
    }
    into.put(eq < 0 ? text : text.substring(0, eq), tokens);
  }

  /** Reading the fleet's spend less often than hourly would leave budgets blind for too long. */
  static final long MAX_SYNC_MILLIS = 3_600_000L;

  private static URI webhook(String url, List<String> errors) {
    if (url == null) {
      return null;
    }
    try {
      URI u = new URI(url.strip());
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      if ((scheme.equals("http") || scheme.equals("https")) && u.getHost() != null) {
        return u;
      }
    } catch (java.net.URISyntaxException e) {
      // reported below
    }
    errors.add("alert webhook '" + url + "': write an http(s)://HOST[:PORT]/PATH URL");
    return null;
  }

  private static Boolean bool(String s) {
    if (s == null) {
      return Boolean.FALSE;
    }
    return switch (s.strip().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "on" -> Boolean.TRUE;
      case "false", "no", "off" -> Boolean.FALSE;
      default -> null;
    };
  }
}
